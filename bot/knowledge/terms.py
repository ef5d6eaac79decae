"""Search terms for the knowledge base: janome base forms, light English stemming, synonyms."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from typing import Any

from bot.knowledge.documents import parse_document
from bot.knowledge.vocabulary import ENGLISH_STOP_WORDS, JAPANESE_STOP_WORDS, SYNONYM_GROUPS
from bot.text import content_terms, katakana_to_hiragana, normalize

# Bump when terms or weights change: cached analyses of another version are re-tokenised.
ANALYZER_VERSION = 1
# A term in the file title, a tag or the section's heading path counts as this many mentions.
FIELD_WEIGHT = 3
# A synonym added to the query counts for this fraction of the word the user typed.
SYNONYM_WEIGHT = 0.5

_ASCII = re.compile(r"[a-z0-9][a-z0-9_'+-]*")
_KATAKANA_RUN = re.compile(r"[ァ-ヺー]{2,}")


def stem(word: str) -> str:
    """A light English stemmer: report/reports/reported/reporting → report."""
    if not word.isascii() or not word.isalpha() or len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    for suffix, minimum in (("ing", 6), ("ed", 5)):
        if word.endswith(suffix) and len(word) >= minimum:
            root = word[: -len(suffix)]
            if len(root) > 3 and root[-1] == root[-2] and root[-1] not in "lsz":
                root = root[:-1]  # running → run, but spelling → spell
            return root
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _terms_and_runs(text: str) -> tuple[list[str], dict[str, tuple[str, ...]]]:
    terms: list[str] = []
    for term in content_terms(text):
        if _ASCII.fullmatch(term):
            stemmed = stem(term)
            if term not in ENGLISH_STOP_WORDS and stemmed not in ENGLISH_STOP_WORDS:
                terms.append(stemmed)
        elif term not in JAPANESE_STOP_WORDS:
            terms.append(term)
    # janome splits a katakana word it half-knows differently by context (リマインドして →
    # リマインド, but リマインドの → リマ + インド); the whole run as one more term makes both
    # spellings meet.
    runs: dict[str, tuple[str, ...]] = {}
    seen = set(terms)
    for run in _KATAKANA_RUN.findall(normalize(text)):
        whole = katakana_to_hiragana(run)
        if whole not in seen:
            terms.append(whole)
            seen.add(whole)
            runs[whole] = tuple(t for t in dict.fromkeys(terms) if t != whole and t in whole)
    return terms, runs


def search_terms(text: str) -> list[str]:
    """Terms of text as indexed and queried: content words, stop words removed, English stemmed."""
    return _terms_and_runs(text)[0]


@cache
def _synonym_table() -> dict[str, frozenset[str]]:
    """Each synonym's search term → the other terms of its group (built on first query)."""
    table: dict[str, set[str]] = {}
    for group in SYNONYM_GROUPS:
        members = {term for word in group for term in search_terms(word)}
        for member in members:
            table.setdefault(member, set()).update(members - {member})
    return {term: frozenset(others) for term, others in table.items()}


@dataclass(frozen=True, slots=True)
class QueryTerm:
    """A word of the question, the words that mean the same (see `vocabulary.py`) and, for a
    katakana run janome split, the pieces it was split into."""

    term: str
    synonyms: frozenset[str]
    pieces: tuple[str, ...] = ()


def query_terms(query: str) -> list[QueryTerm]:
    """The distinct terms of a question, each with its synonyms."""
    table = _synonym_table()
    terms, runs = _terms_and_runs(query)
    return [
        QueryTerm(term, table.get(term, frozenset()), runs.get(term, ()))
        for term in dict.fromkeys(terms)
    ]


@dataclass(frozen=True, slots=True)
class AnalysedSection:
    """One section with the weighted term counts the index ranks it by."""

    heading_path: tuple[str, ...]
    text: str
    line: int
    terms: dict[str, int]

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
                {"heading": list(s.heading_path), "text": s.text, "line": s.line, "terms": s.terms}
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
                AnalysedSection(tuple(s["heading"]), s["text"], int(s["line"]), dict(s["terms"]))
                for s in data["sections"]
            ),
        )


def analyse_document(text: str, fallback_title: str) -> DocumentAnalysis:
    """Parse and tokenise one file (the slow part: janome reads ~30-70k characters a second)."""
    parsed = parse_document(text, fallback_title)
    document_fields = set(search_terms(" ".join((parsed.title, *parsed.tags))))
    heading_cache: dict[tuple[str, ...], set[str]] = {}
    sections: list[AnalysedSection] = []
    for section in parsed.sections:
        fields = heading_cache.get(section.heading_path)
        if fields is None:
            fields = document_fields | set(search_terms(" ".join(section.heading_path)))
            heading_cache[section.heading_path] = fields
        counts = Counter(search_terms(section.text))
        for term in fields:
            counts[term] += FIELD_WEIGHT
        sections.append(
            AnalysedSection(section.heading_path, section.text, section.line, dict(counts))
        )
    return DocumentAnalysis(parsed.title, parsed.tags, tuple(sections))
