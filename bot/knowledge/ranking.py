"""Ranking sections by two fields fused: whole words, and character bigrams of Japanese words."""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from operator import itemgetter

from bot.knowledge.bm25 import BM25Index, Scored
from bot.knowledge.query import QueryPlan
from bot.knowledge.terms import AnalysedSection, DocumentAnalysis

# How much the bigram field counts beside the word field. Words carry the meaning; bigrams
# only bridge compounds and fragments (年末 ↔ 年末年始, アウト ↔ タイムアウト), so a little.
BIGRAM_WEIGHT = 0.3
# A section matches a term by bigrams only if it holds at least this share of the term's
# bigrams: 年末 (one bigram) inside 年末年始, but not ニックネーム for the ーむ of フォーム.
MIN_BIGRAM_COVERAGE = 0.6
# A file's short intro ("このページでは…") repeats the title words the question shares with every
# section of the file, so it would come first and push the answering section out of the prompt.
INTRO_WEIGHT = 0.5
INTRO_MAX_CHARS = 160


def section_weight(analysis: DocumentAnalysis, section: AnalysedSection) -> float:
    """How much a section's score counts: less for a short intro when the file has more."""
    intro = len(section.heading_path) <= 1 and len(section.text) <= INTRO_MAX_CHARS
    has_more = any(len(other.heading_path) > 1 for other in analysis.sections)
    return INTRO_WEIGHT if intro and has_more else 1.0


class FusedIndex:
    """A word BM25 and a bigram BM25 over the same sections, searched as one."""

    def __init__(self) -> None:
        self.words = BM25Index()
        self.bigrams = BM25Index()
        self._weights: dict[int, float] = {}

    def __len__(self) -> int:
        return len(self.words)

    def add(
        self,
        doc_id: int,
        terms: Mapping[str, float],
        bigrams: Mapping[str, float],
        weight: float = 1.0,
    ) -> None:
        """Index a section's word and bigram frequencies, its score counting weight times."""
        self.words.add(doc_id, terms)
        self.bigrams.add(doc_id, bigrams)
        if weight != 1.0:
            self._weights[doc_id] = weight
        else:
            self._weights.pop(doc_id, None)

    def remove(self, doc_id: int) -> None:
        """Drop a section; unknown ids are ignored."""
        self.words.remove(doc_id)
        self.bigrams.remove(doc_id)
        self._weights.pop(doc_id, None)

    def document_frequency(self, term: str) -> int:
        """How many sections use a word term."""
        return self.words.document_frequency(term)

    def search(self, plan: QueryPlan, limit: int) -> list[Scored]:
        """The best `limit` sections, best first; relevance is the share of the best possible."""
        if limit <= 0:
            return []
        scores, word_best = self.words.scores(plan.words)
        gram_best = 0.0
        for _, grams in plan.bigrams:
            gram_best += sum(self.bigrams.best_score(gram) for gram in grams)
            needed = MIN_BIGRAM_COVERAGE * len(grams)
            matched: dict[int, int] = {}
            summed: dict[int, float] = {}
            for gram in grams:
                for doc, score in self.bigrams.term_scores(gram).items():
                    matched[doc] = matched.get(doc, 0) + 1
                    summed[doc] = summed.get(doc, 0.0) + score
            for doc, score in summed.items():
                if matched[doc] >= needed:
                    scores[doc] = scores.get(doc, 0.0) + BIGRAM_WEIGHT * score
        best = word_best + BIGRAM_WEIGHT * gram_best
        for doc, weight in self._weights.items():
            if doc in scores:
                scores[doc] *= weight
        top = heapq.nlargest(limit, scores.items(), key=itemgetter(1))
        return [
            Scored(doc, score, min(1.0, score / best) if best else 0.0)
            for doc, score in top
            if score > 0
        ]
