"""Ranking notes for a question with the knowledge base's terms, synonyms and BM25."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.search.bm25 import BM25Index, plan_query
from bot.search.snippets import make_snippet
from bot.search.synonyms import builtin_vocabulary
from bot.search.terms import FIELD_WEIGHT, search_terms


def note_terms(title: str, body: str) -> dict[str, float]:
    """Weighted search terms of a note: a word of the title counts like FIELD_WEIGHT mentions."""
    counts: Counter[str] = Counter(search_terms(body))
    for term in search_terms(title):
        counts[term] += FIELD_WEIGHT
    return {term: float(count) for term, count in counts.items()}


@dataclass(frozen=True, slots=True)
class RankedNote:
    """A note id, the share of the question's words it holds, and an excerpt around them."""

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
    held: dict[int, Mapping[str, float]] = {}
    for note_id, text, terms in notes:
        index.add(note_id, terms)
        texts[note_id] = text
        held[note_id] = terms
    plan = plan_query(query, builtin_vocabulary(), index.document_frequency)
    concepts = plan.words
    if not concepts:
        return []
    wanted = plan.terms
    ranked: list[RankedNote] = []
    for hit in index.search(concepts, limit):
        # BM25's share of the best score misleads in a notebook of a few notes (every shared
        # word is "common"), so relevance is the share of the question's words the note holds.
        covered = sum(any(t in held[hit.doc_id] for t, _ in c) for c in concepts)
        snippet = make_snippet(texts[hit.doc_id], wanted)
        ranked.append(RankedNote(hit.doc_id, covered / len(concepts), snippet))
    return ranked
