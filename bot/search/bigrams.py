"""The sub-word field: character bigrams of Japanese terms, so parts of compounds meet.

janome keeps 年末年始 and タイムアウト whole, so a question about 年末 or アウト shares no word
with them; it shares the bigrams 年末 and あう・うと. Only Japanese terms give bigrams: English
words already meet through stemming, and a bigram of Latin letters matches almost anything.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable


def _japanese(term: str) -> bool:
    return not term.isascii() and len(term) >= 2


def term_bigrams(term: str) -> list[str]:
    """The character bigrams of one Japanese term (none for English words or one character)."""
    if not _japanese(term):
        return []
    return [term[i : i + 2] for i in range(len(term) - 1)]


def bigram_counts(terms: Iterable[str]) -> Counter[str]:
    """How often each bigram occurs in the terms (each term counted where it occurs)."""
    counts: Counter[str] = Counter()
    for term in terms:
        counts.update(term_bigrams(term))
    return counts
