"""A knowledge-base file analysed for search: its sections with weighted terms and bigrams."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from bot.knowledge.documents import parse_document
from bot.runtime.worker import text_executor
from bot.search.bigrams import bigram_counts
from bot.search.terms import FIELD_WEIGHT, search_terms

log = logging.getLogger(__name__)

# Bump when terms or weights change: cached analyses of another version are re-tokenised.
ANALYZER_VERSION = 5


@dataclass(frozen=True, slots=True)
class AnalysedSection:
    """One section with the weighted term counts the index ranks it by."""

    heading_path: tuple[str, ...]
    text: str
    line: int
    terms: dict[str, int]
    # Character bigrams of the Japanese terms: the sub-word field (年末 inside 年末年始).
    bigrams: dict[str, int]

    @property
    def heading(self) -> str:
        """The heading path joined for display."""
        return " > ".join(self.heading_path)


@dataclass(frozen=True, slots=True)
class DocumentAnalysis:
    """What tokenising a file produced, cached as JSON so an unchanged file is not re-tokenised."""

    title: str
    tags: tuple[str, ...]
    sections: tuple[AnalysedSection, ...]

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict for the database cache."""
        return {
            "title": self.title,
            "tags": list(self.tags),
            "sections": [
                {
                    "heading": list(s.heading_path),
                    "text": s.text,
                    "line": s.line,
                    "terms": s.terms,
                    "bigrams": s.bigrams,
                }
                for s in self.sections
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DocumentAnalysis:
        """Rebuild an analysis from its cached JSON."""
        return cls(
            title=str(data["title"]),
            tags=tuple(data["tags"]),
            sections=tuple(
                AnalysedSection(
                    tuple(s["heading"]),
                    s["text"],
                    int(s["line"]),
                    dict(s["terms"]),
                    dict(s.get("bigrams", {})),
                )
                for s in data["sections"]
            ),
        )


def analyse_document(text: str, fallback_title: str) -> DocumentAnalysis:
    """Parse and tokenise one file (the slow part: janome reads ~30-70k characters a second)."""
    parsed = parse_document(text, fallback_title)
    document_fields = list(dict.fromkeys(search_terms(" ".join((parsed.title, *parsed.tags)))))
    heading_cache: dict[tuple[str, ...], list[str]] = {}
    sections: list[AnalysedSection] = []
    for section in parsed.sections:
        fields = heading_cache.get(section.heading_path)
        if fields is None:
            # The section's own headings count on top of the title's words they repeat (配信・
            # 画面共有 > 画面共有のしかた), so the answering section beats its file's intro.
            own = " ".join(h for h in section.heading_path if h != parsed.title)
            fields = document_fields + list(dict.fromkeys(search_terms(own)))
            heading_cache[section.heading_path] = fields
        body = search_terms(section.text)
        counts = Counter(body)
        for term in fields:
            counts[term] += FIELD_WEIGHT
        bigrams = bigram_counts(body)
        for gram, count in bigram_counts(fields).items():
            bigrams[gram] += FIELD_WEIGHT * count
        sections.append(
            AnalysedSection(
                section.heading_path, section.text, section.line, dict(counts), dict(bigrams)
            )
        )
    return DocumentAnalysis(parsed.title, parsed.tags, tuple(sections))


# (text, fallback title) → analysis; injectable so tests can count tokenisations.
Analyser = Callable[[str, str], DocumentAnalysis]


async def analyse_in_worker(
    analyse: Analyser, batch: list[tuple[str, str]]
) -> list[DocumentAnalysis | None]:
    """Analyse (path, text) pairs on the worker thread; None for a file that failed."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(text_executor(), _analyse_batch, analyse, batch)


def _analyse_batch(
    analyse: Analyser, batch: list[tuple[str, str]]
) -> list[DocumentAnalysis | None]:
    results: list[DocumentAnalysis | None] = []
    for path, text in batch:
        try:
            results.append(analyse(text, PurePosixPath(path).stem))
        except Exception:  # one malformed file must not keep the rest out of the index
            log.exception("cannot analyse knowledge-base file %s; it is left out", path)
            results.append(None)
    return results
