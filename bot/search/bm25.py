"""A question turned into what the index ranks by, and Okapi BM25 over an inverted index that
documents can join and leave one at a time."""

from __future__ import annotations

import heapq
import math
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter

from bot.search.bigrams import term_bigrams
from bot.search.synonyms import Phrase, Vocabulary
from bot.search.terms import singular_acronyms, terms_and_runs

# The usual Okapi constants: k1 bounds how much repeating a term helps, b how much a long
# section is penalised for its length.
K1 = 1.5
B = 0.75


# Interchangeable (term, weight) pairs: a word of the question and its synonyms.
Concept = Sequence[tuple[str, float]]


@dataclass(frozen=True, slots=True)
class Scored:
    """A document id with its BM25 score and its share (0-1) of the best score possible."""

    doc_id: int
    score: float
    relevance: float


class BM25Index:
    """Term → {document → weighted term frequency}, with lengths for the length normalisation."""

    def __init__(self, k1: float = K1, b: float = B) -> None:
        self.k1 = k1
        self.b = b
        self._postings: dict[str, dict[int, float]] = {}
        self._terms: dict[int, Mapping[str, float]] = {}
        self._lengths: dict[int, float] = {}
        self._total_length = 0.0
        # k1 * (1 - b + b * length / average length) per document; recomputed lazily after a
        # change, since every document's value depends on the average length.
        self._norms: dict[int, float] | None = None

    def __len__(self) -> int:
        return len(self._terms)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._terms

    def add(self, doc_id: int, terms: Mapping[str, float]) -> None:
        """Index a document's term frequencies (replacing it if the id is already indexed)."""
        if doc_id in self._terms:
            self.remove(doc_id)
        self._terms[doc_id] = terms
        length = float(sum(terms.values()))
        self._lengths[doc_id] = length
        self._total_length += length
        for term, frequency in terms.items():
            self._postings.setdefault(term, {})[doc_id] = frequency
        self._norms = None

    def remove(self, doc_id: int) -> None:
        """Drop a document; unknown ids are ignored."""
        terms = self._terms.pop(doc_id, None)
        if terms is None:
            return
        self._total_length -= self._lengths.pop(doc_id)
        for term in terms:
            postings = self._postings.get(term)
            if postings is not None:
                postings.pop(doc_id, None)
                if not postings:
                    del self._postings[term]
        self._norms = None

    def document_frequency(self, term: str) -> int:
        """How many documents contain term."""
        return len(self._postings.get(term, ()))

    def contains(self, doc_id: int, term: str) -> bool:
        """Whether a document holds term."""
        return doc_id in self._postings.get(term, ())

    def idf(self, term: str) -> float:
        """Inverse document frequency, in the variant that never goes negative."""
        count = len(self._terms)
        frequency = self.document_frequency(term)
        return math.log(1.0 + (count - frequency + 0.5) / (frequency + 0.5))

    def _current_norms(self) -> dict[int, float]:
        if self._norms is None:
            average = self._total_length / len(self._lengths) if self._lengths else 1.0
            average = average or 1.0
            k1, b = self.k1, self.b
            self._norms = {
                doc: k1 * (1.0 - b + b * length / average) for doc, length in self._lengths.items()
            }
        return self._norms

    def search(self, concepts: Sequence[Concept], limit: int) -> list[Scored]:
        """The best `limit` documents for a query, best first.

        A query is a list of concepts, each a few interchangeable (term, weight) pairs: a word
        and its synonyms. The score is plain BM25 over every pair; the relevance divides it by
        the best score possible, counting each concept once at its strongest alternative.
        """
        if limit <= 0:
            return []
        scores, best_possible = self.scores(concepts)
        top = heapq.nlargest(limit, scores.items(), key=itemgetter(1))
        return [
            Scored(doc, score, min(1.0, score / best_possible) if best_possible else 0.0)
            for doc, score in top
        ]

    def term_scores(
        self, term: str, weight: float = 1.0, within: Collection[int] | None = None
    ) -> dict[int, float]:
        """Each document's BM25 score for one term alone (only those within, if given)."""
        postings = self._postings.get(term)
        if not postings:
            return {}
        norms = self._current_norms()
        factor = weight * self.idf(term) * (self.k1 + 1.0)
        if within is not None:
            pairs = ((doc, postings.get(doc)) for doc in within)
            return {doc: factor * f / (f + norms[doc]) for doc, f in pairs if f}
        return {doc: factor * f / (f + norms[doc]) for doc, f in postings.items()}

    def best_score(self, term: str, weight: float = 1.0) -> float:
        """The highest score one term can give a document (saturated frequency)."""
        return weight * self.idf(term) * (self.k1 + 1.0)

    def weigh(self, concepts: Sequence[Concept]) -> tuple[dict[str, float], float]:
        """Each term's summed weight in the query, and the best score possible for it."""
        weights: dict[str, float] = {}
        best_possible = 0.0
        for concept in concepts:
            strongest = 0.0
            for term, weight in concept:
                weights[term] = weights.get(term, 0.0) + weight
                strongest = max(strongest, weight * self.idf(term))
            best_possible += strongest * (self.k1 + 1.0)
        return weights, best_possible

    def scores(self, concepts: Sequence[Concept]) -> tuple[dict[int, float], float]:
        """Every matching document's score, and the best score possible for the concepts."""
        if not self._terms:
            return {}, 0.0
        norms = self._current_norms()
        saturation = self.k1 + 1.0
        weights, best_possible = self.weigh(concepts)
        scores: dict[int, float] = {}
        for term, weight in weights.items():
            postings = self._postings.get(term)
            if not postings:
                continue
            factor = weight * self.idf(term) * saturation
            get = scores.get
            for doc, frequency in postings.items():
                scores[doc] = get(doc, 0.0) + factor * frequency / (frequency + norms[doc])
        return scores, best_possible


# What the index ranks by: a question becomes word concepts and sub-word bigrams. A concept is a
# few interchangeable (term, weight) pairs: a word of the question and its synonyms. Synonyms are
# kept only when the files use them: one they never use cannot match, yet its high IDF would raise
# the best score possible and hide every real match from the prompt.

# A synonym added to the question counts for this fraction of the word the user typed.
SYNONYM_WEIGHT = 0.5

# How many sections contain a term (0: the files never use it).
Frequency = Callable[[str], int]

# A dictionary form ending like a verb or an adjective (乗っ取る, 楽しい): a conjugable word.
_CONJUGABLE = re.compile(r"[\u3400-\u9fff々].*[うくすつぬふむゆるぐずづぶぷい]$")


@dataclass(frozen=True, slots=True)
class QueryPlan:
    """What a question searches for: word concepts, and each Japanese term with its bigrams."""

    words: list[Concept]
    bigrams: list[tuple[str, tuple[str, ...]]]

    @property
    def terms(self) -> set[str]:
        """Every word term searched, for placing snippets."""
        return {term for concept in self.words for term, _ in concept}


def _concept(typed: tuple[str, ...], synonyms: frozenset[str], frequency: Frequency) -> Concept:
    present = sorted(s for s in synonyms if frequency(s))
    used = [t for t in typed if frequency(t)]
    if used and len(typed) > 1 and present:
        # A phrase ("push to talk") means its group, not each of its words: a page using one
        # of them ("talk") must not outrank the page that names the thing.
        return [*((t, SYNONYM_WEIGHT) for t in used), *((s, 1.0) for s in present)]
    if used:
        return [*((t, 1.0) for t in used), *((s, SYNONYM_WEIGHT) for s in present)]
    if not typed:
        # A question word such as いつ or "when" only hints at the section's kind (日時).
        return [(s, SYNONYM_WEIGHT) for s in present]
    # The files never use the word asked: its synonyms stand in for it at full weight
    # (「入る」 asked, 「参加」 written), or it stays to show the files lack it.
    return [(s, 1.0) for s in present] or [(t, 1.0) for t in typed]


def parts_of(term: str, frequency: Frequency) -> set[str]:
    """The words of a compound the files use on their own (年末年始 → 年末, 年始; 夏休み → 休み).

    Verbs and adjectives are not split: 乗っ取る would split into an unrelated word (取る).
    """
    if len(term) < 3 or term.isascii() or _CONJUGABLE.match(term):
        return set()
    return {
        term[start:end]
        for start in range(len(term) - 1)
        for end in range(start + 2, len(term) + 1)
        if end - start < len(term) and frequency(term[start:end])
    }


def plan_query(query: str, vocabulary: Vocabulary, frequency: Frequency) -> QueryPlan:
    """The concepts of a question, adapted to the words the files use."""
    phrases, rest = vocabulary.find_phrases(singular_acronyms(query))
    items, runs = terms_and_runs(rest)
    terms = list(dict.fromkeys(items))
    # A split katakana word is searched whole if the files use it whole, else by its pieces.
    dropped: set[str] = set()
    for term in terms:
        if term in runs:
            dropped.update(runs[term] if frequency(term) else (term,))
    kept = [t for t in terms if t not in dropped]
    words: list[Concept] = [_concept(p.terms, p.synonyms, frequency) for p in _distinct(phrases)]
    words += [
        _concept((t,), vocabulary.synonyms_of(t) | parts_of(t, frequency), frequency) for t in kept
    ]
    pieces = {piece for split in runs.values() for piece in split}
    typed = [t for t in terms if t not in pieces] + [t for p in phrases for t in p.terms]
    grams = [(t, tuple(dict.fromkeys(term_bigrams(t)))) for t in dict.fromkeys(typed)]
    return QueryPlan(words=[c for c in words if c], bigrams=[(t, g) for t, g in grams if g])


def _distinct(phrases: list[Phrase]) -> list[Phrase]:
    return list({p.surface: p for p in phrases}.values())
