"""Ranking notes for a question with the knowledge base's terms, synonyms and BM25."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.knowledge.bm25 import BM25Index
from bot.knowledge.query import plan_query
from bot.knowledge.snippets import make_snippet
from bot.knowledge.synonyms import builtin_vocabulary
from bot.knowledge.terms import FIELD_WEIGHT, search_terms

# A notebook is small, so a word no note uses weighs heavily in the best score possible:
# keep any real match and let the order (and the relevance shown) speak.
MIN_RELEVANCE = 0.05


def note_terms(title: str, body: str) -> dict[str, float]:
    """Weighted search terms of a note: a word of the title counts like FIELD_WEIGHT mentions."""
    counts: Counter[str] = Counter(search_terms(body))
    for term in search_terms(title):
        counts[term] += FIELD_WEIGHT
    return {term: float(count) for term, count in counts.items()}


@dataclass(frozen=True, slots=True)
class RankedNote:
    """A note id, how well it matched, and the words of the question it matched."""

    note_id: int
    relevance: float
    snippet: str


def rank_notes(
    query: str, notes: Sequence[tuple[int, str, Mapping[str, float]]], limit: int
) -> list[RankedNote]:
    """The best notes among (id, text, terms) for a question, best first (CPU-bound: janome)."""
    if not notes:
        return []
    index = BM25Index()
    texts: dict[int, str] = {}
    for note_id, text, terms in notes:
        index.add(note_id, terms)
        texts[note_id] = text
    plan = plan_query(query, builtin_vocabulary(), index.document_frequency)
    concepts = plan.words
    if not concepts:
        return []
    wanted = plan.terms
    return [
        RankedNote(hit.doc_id, hit.relevance, make_snippet(texts[hit.doc_id], wanted))
        for hit in index.search(concepts, limit)
        if hit.relevance >= MIN_RELEVANCE
    ]
