"""Ranking sections by two fields fused: whole words, and character bigrams of Japanese words."""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from operator import itemgetter

from bot.knowledge.bm25 import BM25Index, Scored
from bot.knowledge.query import QueryPlan

# How much the bigram field counts beside the word field. Words carry the meaning; bigrams
# only bridge compounds and fragments (年末 ↔ 年末年始, アウト ↔ タイムアウト), so a little.
BIGRAM_WEIGHT = 0.3
# A section matches a term by bigrams only if it holds at least this share of the term's
# bigrams: 年末 (one bigram) inside 年末年始, but not ニックネーム for the ーむ of フォーム.
MIN_BIGRAM_COVERAGE = 0.6
# A section shorter than this share of the average length is ranked as if it had it: a one-line
# intro under the title would otherwise outrank the section that answers.
MIN_LENGTH_SHARE = 0.5


class FusedIndex:
    """A word BM25 and a bigram BM25 over the same sections, searched as one."""

    def __init__(self) -> None:
        self.words = BM25Index(min_length_share=MIN_LENGTH_SHARE)
        self.bigrams = BM25Index(min_length_share=MIN_LENGTH_SHARE)

    def __len__(self) -> int:
        return len(self.words)

    def add(self, doc_id: int, terms: Mapping[str, float], bigrams: Mapping[str, float]) -> None:
        """Index a section's word and bigram frequencies."""
        self.words.add(doc_id, terms)
        self.bigrams.add(doc_id, bigrams)

    def remove(self, doc_id: int) -> None:
        """Drop a section; unknown ids are ignored."""
        self.words.remove(doc_id)
        self.bigrams.remove(doc_id)

    def document_frequency(self, term: str) -> int:
        """How many sections use a word term."""
        return self.words.document_frequency(term)

    def search(self, plan: QueryPlan, limit: int) -> list[Scored]:
        """The best `limit` sections, best first; relevance is the share of the best possible."""
        if limit <= 0:
            return []
        scores, word_best = self.words.scores(plan.words)
        gram_best = 0.0
        for grams in plan.bigrams:
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
        top = heapq.nlargest(limit, scores.items(), key=itemgetter(1))
        return [Scored(doc, score, min(1.0, score / best) if best else 0.0) for doc, score in top]
