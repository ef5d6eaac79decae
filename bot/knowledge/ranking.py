"""What the index hands out (matching sections, reports of what a refresh changed), ranked by two
fields fused: whole words, and character bigrams of Japanese words."""

from __future__ import annotations

import heapq
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from operator import itemgetter

from bot.knowledge.analysis import AnalysedSection, DocumentAnalysis
from bot.search.bm25 import BM25Index, QueryPlan, Scored

WEB_SEARCH_TAG = "web_search"


@dataclass(frozen=True, slots=True)
class KnowledgeHit:
    """One matching section, with what an answer needs to quote and cite it."""

    path: str
    source: str
    title: str
    heading: str
    text: str
    snippet: str
    score: float
    relevance: float
    tags: tuple[str, ...] = ()

    @property
    def is_web_search(self) -> bool:
        """Whether the section comes from a saved web search rather than an admin's text."""
        return WEB_SEARCH_TAG in self.tags


@dataclass
class RefreshReport:
    """What one pass over the directory changed."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    tokenised: int = 0
    from_cache: int = 0
    seconds: float = 0.0

    @property
    def changed(self) -> bool:
        """Whether anything in the index changed."""
        return bool(self.added or self.updated or self.removed)

    def summary(self) -> str:
        """A sentence for an admin, e.g. `2 files added, 1 updated, 0 removed (0.3 s).`."""
        text = (
            f"{len(self.added)} files added, {len(self.updated)} updated, "
            f"{len(self.removed)} removed ({self.seconds:.1f} s)."
        )
        if self.skipped:
            text += f" Skipped (too large or unreadable): {', '.join(self.skipped)}."
        return text


# Terms in more sections than this are scored for the rarer terms' candidates first (see search).
COMMON_POSTINGS = 300
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
# A section that matches only some of a question's words loses this power of the share it
# matches (counting one in the share's numerator and denominator so a one-word miss is mild):
# "is nsfw allowed" is about the page saying both, not the FAQ heading that says だめ three times.
COORDINATION_POWER = 0.5


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

    def search(self, plan: QueryPlan, limit: int, exclude: Collection[int] = ()) -> list[Scored]:
        """The best `limit` sections, best first; relevance is the share of the best possible.

        Terms in more than COMMON_POSTINGS sections are first scored only for the sections the
        rarer terms found. That top is exact when its last score beats the most a section found
        by common terms alone could reach; otherwise the query is scored in full. Sections in
        `exclude` (shared files a server overrides) are never returned.
        """
        if limit <= 0:
            return []
        pruned = self._search(plan, limit, exclude, prune=True)
        if pruned is not None:
            return pruned
        return self._search(plan, limit, exclude, prune=False) or []

    def _search(
        self, plan: QueryPlan, limit: int, exclude: Collection[int] = (), *, prune: bool
    ) -> list[Scored] | None:
        weights, word_best = self.words.weigh(plan.words)
        gram_best = sum(self.bigrams.best_score(g) for _, grams in plan.bigrams for g in grams)
        best = word_best + BIGRAM_WEIGHT * gram_best
        common = COMMON_POSTINGS if prune else len(self) + 1
        words = self.words.document_frequency
        rare_terms = [t for t in weights if words(t) <= common]
        common_terms = [t for t in weights if words(t) > common]
        grams_df = self.bigrams.document_frequency
        groups = [grams for _, grams in plan.bigrams]
        rare_groups = [g for g in groups if min(map(grams_df, g)) <= common]
        common_groups = [g for g in groups if min(map(grams_df, g)) > common]

        scores: dict[int, float] = {}
        by_grams: dict[tuple[str, ...], set[int]] = {}
        for term in rare_terms:
            _add(scores, self.words.term_scores(term, weights[term]))
        for grams in rare_groups:
            found = self._bigram_scores(grams, None)
            by_grams[grams] = set(found)
            _add(scores, found)
        if prune and not scores and (common_terms or common_groups):
            return None  # nothing rare matched: only a full pass can rank the common terms
        within = list(scores) if prune else None
        unseen_bound = 0.0
        for term in common_terms:
            _add(scores, self.words.term_scores(term, weights[term], within))
            unseen_bound += self.words.best_score(term, weights[term])
        for grams in common_groups:
            found = self._bigram_scores(grams, within)
            by_grams[grams] = set(found)
            _add(scores, found)
            unseen_bound += BIGRAM_WEIGHT * sum(self.bigrams.best_score(g) for g in grams)
        for doc in exclude:
            scores.pop(doc, None)
        self._coordinate(scores, plan, by_grams)
        for doc in scores.keys() & self._weights.keys():
            scores[doc] *= self._weights[doc]
        top = heapq.nlargest(limit, scores.items(), key=itemgetter(1))
        if within is not None and unseen_bound and (len(top) < limit or top[-1][1] < unseen_bound):
            return None
        return [
            Scored(doc, score, min(1.0, score / best) if best else 0.0)
            for doc, score in top
            if score > 0
        ]

    def _coordinate(
        self,
        scores: dict[int, float],
        plan: QueryPlan,
        by_grams: Mapping[tuple[str, ...], set[int]],
    ) -> None:
        """Scale each score by the share of the question's words the section matches."""
        grams_of = dict(plan.bigrams)
        concepts = []
        for concept in plan.words:
            terms = [t for t, _ in concept if self.words.document_frequency(t)]
            grams = [by_grams.get(grams_of[t], set()) for t, _ in concept if t in grams_of]
            if terms or any(grams):
                concepts.append((terms, grams))
        if len(concepts) < 2:
            return
        contains = self.words.contains
        for doc in scores:
            matched = sum(
                any(contains(doc, t) for t in terms) or any(doc in g for g in grams)
                for terms, grams in concepts
            )
            scores[doc] *= ((matched + 1) / (len(concepts) + 1)) ** COORDINATION_POWER

    def _bigram_scores(self, grams: tuple[str, ...], within: list[int] | None) -> dict[int, float]:
        """Bigram scores of one word, for the sections holding enough of its bigrams."""
        needed = MIN_BIGRAM_COVERAGE * len(grams)
        matched: dict[int, int] = {}
        summed: dict[int, float] = {}
        for gram in grams:
            for doc, score in self.bigrams.term_scores(gram, within=within).items():
                matched[doc] = matched.get(doc, 0) + 1
                summed[doc] = summed.get(doc, 0.0) + score
        return {doc: BIGRAM_WEIGHT * s for doc, s in summed.items() if matched[doc] >= needed}


def _add(scores: dict[int, float], more: Mapping[int, float]) -> None:
    get = scores.get
    for doc, score in more.items():
        scores[doc] = get(doc, 0.0) + score
