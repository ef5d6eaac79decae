"""A question turned into what the index ranks by: word concepts and sub-word bigrams.

A concept is a few interchangeable (term, weight) pairs: a word of the question and its
synonyms. Synonyms are kept only when the files use them: one they never use cannot match, yet
its high IDF would raise the best score possible and hide every real match from the prompt.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from bot.search.bigrams import term_bigrams
from bot.search.bm25 import Concept
from bot.search.synonyms import Phrase, Vocabulary
from bot.search.terms import singular_acronyms, terms_and_runs

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
