"""The outline of the knowledge a scope reads — page titles, tags and section headings — that the
model reads to pick a page by meaning, within a size.

When every page's line fits, the outline is the same for every question of the scope and changes
only when a file does (so a prompt cache keeps it). A larger base gets the lines of the pages
nearest the question (BM25, fused with embeddings when configured) and then the titles of the
others, as many as fit.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from bot.knowledge.analysis import DocumentAnalysis
from bot.knowledge.index import KnowledgeIndex
from bot.servers import ServerScope
from bot.text.clip import clip

OPENING = "<knowledge_outline>\n"
CLOSING = "</knowledge_outline>"
_PICK = (
    "Members often ask in other words or another language than the page: pick the page and "
    "section whose meaning fits and call read_knowledge(page, section).\n"
)
HEADER = "Every page you can read, as `page: title [tags] — sections`. " + _PICK
NEAREST_HEADER = (
    "The pages nearest the question, as `page: title [tags] — sections`; the other pages' "
    "titles follow. " + _PICK
)
OTHERS_HEADER = "Other pages (page: title):\n"
# How many pages the nearest part considers; the budget usually admits fewer.
NEAREST_CANDIDATES = 30
# Share of the budget the nearest pages' lines may take before the other titles.
NEAREST_SHARE = 0.6
# One page's line is cut here, so a page with a hundred headings cannot take the whole budget.
MAX_LINE_CHARS = 600
# Scopes whose outlines are remembered (each server reads the shared pages and its own).
REMEMBERED_SCOPES = 256


def section_names(analysis: DocumentAnalysis) -> list[str]:
    """The page's section headings below its title, each once, in order."""
    names: list[str] = []
    for section in analysis.sections:
        path = section.heading_path
        if path and path[0] == analysis.title:
            path = path[1:]
        if path:
            names.append(path[-1])
    return list(dict.fromkeys(names))


def page_line(path: str, analysis: DocumentAnalysis) -> str:
    """One page as the outline shows it: `faq.md: よくある質問 [faq] — 参加方法 | …`."""
    tags = f" [{', '.join(analysis.tags)}]" if analysis.tags else ""
    names = section_names(analysis)
    sections = f" — {' | '.join(names)}" if names else ""
    return clip(f"{path}: {analysis.title}{tags}{sections}", MAX_LINE_CHARS) + "\n"


@dataclass(frozen=True, slots=True)
class _Lines:
    """A scope's pages as outline lines, for one generation of the index."""

    generation: int
    lines: dict[str, str]
    titles: dict[str, str]
    whole: str | None


class Outliner:
    """Builds the outline a scope's model receives, remembered per scope until a file changes."""

    def __init__(self, index: KnowledgeIndex, budget_chars: int) -> None:
        self._index = index
        self._budget = budget_chars
        self._scopes: OrderedDict[int | None, _Lines] = OrderedDict()

    @property
    def budget_chars(self) -> int:
        """The most characters an outline takes (0: no outline)."""
        return self._budget

    async def outline(self, question: str, scope: ServerScope = ServerScope.DM) -> str:
        """The outline block for a question in a scope, or "" when there is nothing to show."""
        if self._budget <= 0:
            return ""
        lines = self._lines(scope)
        if not lines.lines:
            return ""
        if lines.whole is not None:
            return lines.whole
        return await self._nearest(question, scope, lines)

    def _lines(self, scope: ServerScope) -> _Lines:
        cached = self._scopes.get(scope.guild_id)
        if cached is not None and cached.generation == self._index.generation:
            self._scopes.move_to_end(scope.guild_id)
            return cached
        lines: dict[str, str] = {}
        titles: dict[str, str] = {}
        for path in self._index.visible_paths(scope):
            analysis = self._index.page(path, scope)
            if analysis is None:
                continue
            lines[path] = page_line(path, analysis)
            titles[path] = f"{path}: {clip(analysis.title, 80)}\n"
        body = HEADER + "".join(lines.values())
        fits = len(OPENING) + len(body) + len(CLOSING) <= self._budget
        made = _Lines(
            self._index.generation, lines, titles, OPENING + body + CLOSING if fits else None
        )
        self._scopes[scope.guild_id] = made
        if len(self._scopes) > REMEMBERED_SCOPES:
            self._scopes.popitem(last=False)
        return made

    async def _nearest(self, question: str, scope: ServerScope, lines: _Lines) -> str:
        hits = (
            await self._index.query(question, NEAREST_CANDIDATES, scope=scope) if question else []
        )
        ranked = [p for p in dict.fromkeys(hit.path for hit in hits) if p in lines.lines]
        room = self._budget - len(OPENING) - len(CLOSING) - len(NEAREST_HEADER)
        nearest_room = int(room * NEAREST_SHARE)
        chosen: list[str] = []
        for path in ranked:
            if len(lines.lines[path]) > nearest_room:
                break
            chosen.append(path)
            nearest_room -= len(lines.lines[path])
        used = sum(len(lines.lines[p]) for p in chosen)
        room -= used + len(OTHERS_HEADER)
        # Titles of the pages search ranked next first, then the rest in path order.
        others = [p for p in ranked if p not in chosen]
        others += [p for p in lines.titles if p not in chosen and p not in others]
        listed: list[str] = []
        for number, path in enumerate(others):
            left = len(others) - number
            ellipsis = f"… and {left} more pages: search_knowledge finds them.\n"
            if len(lines.titles[path]) + len(ellipsis) > room:
                if len(ellipsis) <= room:
                    listed.append(ellipsis)
                break
            listed.append(lines.titles[path])
            room -= len(lines.titles[path])
        body = NEAREST_HEADER + "".join(lines.lines[p] for p in chosen)
        if listed:
            body += OTHERS_HEADER + "".join(listed)
        return OPENING + body + CLOSING
