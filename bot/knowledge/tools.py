"""The read-only knowledge tools: `search_knowledge` (several phrasings at once) and
`read_knowledge` (a page or section the model picked from the outline)."""

from __future__ import annotations

from typing import Any, Protocol
from zoneinfo import ZoneInfo

from bot.agent.conversation.fences import Untrusted
from bot.agent.tools import Tool, ToolContext, ToolError, tool
from bot.agent.tools.presentation import Label, Look
from bot.i18n import Text
from bot.knowledge.index import KnowledgeIndex
from bot.knowledge.outline import section_names
from bot.knowledge.ranking import KnowledgeHit
from bot.servers import ServerScope
from bot.text.analysis import normalize
from bot.text.clip import clip

MAX_RESULTS = 10
MAX_QUERY_CHARS = 500
# Other phrasings one search takes beside the question.
MAX_PHRASINGS = 4
# Below this relevance (share of the best score the words could reach) a section shares only a
# word or two with the question: the model is pointed to the outline instead.
WELL_MATCHED = 0.25
# Reciprocal rank fusion of the phrasings' rankings (the constant of the original paper).
RRF_K = 60
# What one read returns at most (a page's sections are at most 1,200 characters each).
MAX_READ_CHARS = 4000


class NoteSearch(Protocol):
    """Notes members wrote, searched beside the files (the server notebook provides it)."""

    async def cited_matches(
        self, guild_id: int, query: str, limit: int, tz: ZoneInfo
    ) -> list[dict[str, Any]]:
        """The server's best notes for a question, as the model should see and cite them."""
        ...


class KnowledgeDeps(Protocol):
    """What the knowledge tools need of the bot's dependencies."""

    @property
    def knowledge(self) -> KnowledgeIndex:
        """The bot's knowledge-base index."""
        ...

    @property
    def notebook(self) -> NoteSearch | None:
        """The server notebook searched beside the files, when the bot keeps one."""
        ...


async def knowledge_index(ctx: ToolContext[KnowledgeDeps]) -> KnowledgeIndex:
    """The bot's index from the dependencies; started on first use if nothing did."""
    index = ctx.deps.knowledge
    await index.ensure_started()
    return index


SEARCH_LOOK = Look(
    title=Text("ナレッジを検索", "Search the knowledge base"),
    labels={"query": Label(Text("検索語", "Search words"))},
    doing=Text("ナレッジを検索", "Searching the knowledge base"),
)


def _untrusted_found(output: Any) -> Untrusted | None:
    """Saved web pages and members' notes among the results are not the admins' words."""
    if not isinstance(output, dict):
        return None
    if any(hit.get("saved_web_search") for hit in output.get("results") or []):
        return "web"
    return "note" if output.get("notes") else None


@tool(
    requires_approval=False,
    read_only=True,
    source="knowledge",
    look=SEARCH_LOOK,
    untrusted=_untrusted_found,
)
async def search_knowledge(
    ctx: ToolContext[KnowledgeDeps],
    query: str,
    also: tuple[str, ...] = (),
    limit: int = 5,
) -> dict[str, Any]:
    """Search the server's knowledge base (and its notebook): matching sections with the path
    to cite.

    Args:
        query: what to look for, in the member's words.
        also: other phrasings searched too (up to 4): the page's likely words in Japanese and
            English, e.g. ["招待リンク", "invite link"].
        limit: how many sections, 1 to 10.
    """
    phrasings = _phrasings(query, list(also))
    count = max(1, min(limit, MAX_RESULTS))
    index = await knowledge_index(ctx)
    scope = ServerScope.of(ctx.guild_id)
    found = [await index.query(text, count, scope=scope) for text in phrasings]
    hits = merge_rankings(found, count)
    result: dict[str, Any] = {
        "results": [
            {
                "source": hit.source,
                "heading": hit.heading,
                "score": round(hit.score, 2),
                "relevance": round(hit.relevance, 2),
                "snippet": hit.snippet,
                **({"saved_web_search": True} if hit.is_web_search else {}),
            }
            for hit in hits
        ]
    }
    notes = await _matching_notes(ctx, phrasings[0], count)
    if notes:
        result["notes"] = notes
    best = max((hit.relevance for hit in hits), default=0.0)
    if not hits and not notes:
        result["note"] = (
            "Nothing in the knowledge base matches these words. Look at <knowledge_outline> for "
            "a page whose meaning fits and read it with read_knowledge; if none fits, tell the "
            "user the knowledge base does not cover it instead of guessing."
        )
    elif best < WELL_MATCHED and not notes:
        result["note"] = (
            f"Nothing matched well (best relevance {best:.2f}): these sections share only a "
            "word or two with the question. Look at <knowledge_outline> for the page whose "
            "meaning fits and read it with read_knowledge before answering; cite what you use as "
            "`出典: <source>`."
        )
    else:
        result["note"] = "Cite what you use as `出典: <source>`."
        if notes:
            result["note"] += (
                " Notes are what members wrote, not admin text: cite one as "
                "`出典: メモ #<id>「<title>」`."
            )
    if not index.ready:
        result["note"] += " The knowledge base is still being indexed, so results may be partial."
    return result


def _phrasings(query: str, also: list[str]) -> list[str]:
    """The question and its other phrasings, checked, each once (ToolError when unusable)."""
    text = query.strip()
    if not text:
        raise ToolError("query is empty: pass the words to look for, e.g. 'サーバーへの参加方法'.")
    if len(also) > MAX_PHRASINGS:
        raise ToolError(f"also has {len(also)} phrasings; pass at most {MAX_PHRASINGS}.")
    texts = [text, *(a.strip() for a in also)]
    for phrasing in texts:
        if len(phrasing) > MAX_QUERY_CHARS:
            raise ToolError(
                f"a phrasing is {len(phrasing)} characters long; use at most {MAX_QUERY_CHARS}: "
                "the key words of the question, not the whole conversation."
            )
    return [t for t in dict.fromkeys(texts) if t]


def merge_rankings(rankings: list[list[KnowledgeHit]], limit: int) -> list[KnowledgeHit]:
    """Sections found by several phrasings, by reciprocal rank fusion (ties: best relevance)."""
    scores: dict[tuple[str, str, str], float] = {}
    best: dict[tuple[str, str, str], KnowledgeHit] = {}
    for ranking in rankings:
        for rank, hit in enumerate(ranking):
            key = (hit.path, hit.heading, hit.text)
            scores[key] = scores.get(key, 0.0) + 1.0 / (RRF_K + rank + 1)
            if key not in best or hit.relevance > best[key].relevance:
                best[key] = hit
    order = sorted(scores, key=lambda key: (-scores[key], -best[key].relevance))
    return [best[key] for key in order[:limit]]


READ_LOOK = Look(
    title=Text("ナレッジを読む", "Read the knowledge base"),
    labels={"page": Label(Text("ページ", "Page")), "section": Label(Text("節", "Section"))},
    doing=Text("ナレッジを読む", "Reading the knowledge base"),
)


@tool(requires_approval=False, read_only=True, source="knowledge", look=READ_LOOK)
async def read_knowledge(
    ctx: ToolContext[KnowledgeDeps], page: str, section: str = ""
) -> dict[str, Any]:
    """Read a section (or the whole page) picked from <knowledge_outline>, with its path.

    Args:
        page: the page as the outline names it, e.g. "faq.md".
        section: the heading as the outline shows it; empty for the whole page.
    """
    index = await knowledge_index(ctx)
    scope = ServerScope.of(ctx.guild_id)
    path = _resolve_page(index, page, scope)
    analysis = index.page(path, scope)
    assert analysis is not None  # _resolve_page only returns pages the scope reads
    wanted = _folded(section)
    pieces = [
        s for s in analysis.sections if not wanted or wanted in _heading_names(s.heading_path)
    ]
    if not pieces:
        pieces = [
            s for s in analysis.sections if any(wanted in n for n in _heading_names(s.heading_path))
        ]
    if not pieces:
        names = "、".join(section_names(analysis)) or "(none)"
        raise ToolError(
            f"{path} has no section {section!r}. Its sections: {names}. Pass one of them, or an "
            "empty section for the whole page."
        )
    parts: list[str] = []
    for piece in pieces:
        heading = " > ".join(piece.heading_path) or analysis.title
        if not parts or not parts[-1].startswith(f"## {heading}\n"):
            parts.append(f"## {heading}\n{piece.text}")
        else:
            parts[-1] += f"\n\n{piece.text}"
    text = "\n\n".join(parts)
    source = index.source_of(path)
    return {
        "source": source,
        "title": analysis.title,
        "section": section or "",
        "text": clip(text, MAX_READ_CHARS),
        "note": f"Cite what you use as `出典: {source}`."
        + (" The text was cut; read one section at a time." if len(text) > MAX_READ_CHARS else ""),
    }


def _folded(text: str) -> str:
    return normalize(text).strip().lstrip("#").strip().casefold()


def _heading_names(path: tuple[str, ...]) -> set[str]:
    """What a section may be called: each heading of its path, and the path joined."""
    return {_folded(h) for h in path} | {_folded(" > ".join(path))}


def _resolve_page(index: KnowledgeIndex, page: str, scope: ServerScope) -> str:
    """The page's path in the scope, from a path, a citation or a title (ToolError if none)."""
    wanted = page.strip().removeprefix(f"{index.root.name}/").lstrip("/")
    # A server's own page first: it replaces a shared one of the same path there.
    own = f"{scope.knowledge_folder}/{wanted}" if scope.knowledge_folder else None
    for path in (own, wanted):
        if path is not None and index.page(path, scope) is not None:
            return path
    folded = _folded(wanted)
    for path in index.visible_paths(scope):
        analysis = index.page(path, scope)
        if analysis is not None and folded in (_folded(analysis.title), _folded(path)):
            return path
    raise ToolError(
        f"There is no page {page!r} here. Use a page as <knowledge_outline> names it "
        "(e.g. 'faq.md'), or find one with search_knowledge."
    )


async def _matching_notes(
    ctx: ToolContext[KnowledgeDeps], query: str, limit: int
) -> list[dict[str, Any]]:
    """The server's notes that match, when the bot keeps a notebook and this is a server."""
    notes = ctx.deps.notebook
    if notes is None or ctx.guild_id is None:
        return []
    return await notes.cited_matches(ctx.guild_id, query, limit, ctx.timezone)


KNOWLEDGE_TOOLS: list[Tool] = [search_knowledge, read_knowledge]
