"""Words that mean the same, compiled for questions: a term table and a surface matcher.

janome cannot read every way members write: slang in kana (へたくそ, ピコピコ) comes out as
nonsense morphemes, and English phrases ("game night", "screen share") are several words. So a
question is first scanned for the written forms of the vocabulary, longest first; what matches
is taken as that word, and the rest is tokenised as usual, each term looked up by base form.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache

from bot.search.terms import expand_contractions, search_terms
from bot.search.vocabulary import Group, builtin_groups
from bot.text.analysis import normalize

_KATAKANA = "ァ-ヺー"
_ONLY_KATAKANA = re.compile(f"[{_KATAKANA}]+")


@dataclass(frozen=True, slots=True)
class Phrase:
    """A vocabulary word found in a question: its own terms and those of its synonyms."""

    surface: str
    terms: tuple[str, ...]
    synonyms: frozenset[str]


@lru_cache(maxsize=16384)
def _word_terms(word: str) -> tuple[str, ...]:
    # Remembered across rebuilds: an admin's edit tokenises only the words it adds.
    return tuple(dict.fromkeys(search_terms(word)))


def _pattern(word: str) -> str | None:
    """The regex that finds word in a question, or None when the term table covers it."""
    if word.isascii():
        if not re.search(r"[^a-z0-9]", word):
            return None  # one English word: its stemmed term is looked up instead
        return rf"(?<![a-z0-9]){re.escape(word)}(?:e?s)?(?![a-z0-9])"
    if len(word) < 2:
        return None  # one kanji (鯖, 垢) is a janome term of its own
    if _ONLY_KATAKANA.fullmatch(word):
        # ロール must not match inside コントロール, nor アウト inside タイムアウト.
        return rf"(?<![{_KATAKANA}]){re.escape(word)}(?![{_KATAKANA}])"
    return re.escape(word)


class Vocabulary:
    """Synonym groups ready for questions (building it tokenises every word: do it once)."""

    def __init__(self, groups: Iterable[Group]) -> None:
        self.groups = tuple(groups)
        terms_of: dict[str, tuple[str, ...]] = {}
        related: dict[str, set[str]] = {}
        for group in self.groups:
            words = {normalize(word) for word in group}
            for word in words:
                terms_of.setdefault(word, _word_terms(word))
            group_terms = {term for word in words for term in terms_of[word]}
            for word in words:
                related.setdefault(word, set()).update(group_terms - set(terms_of[word]))
        self._phrases: dict[str, Phrase] = {}
        self._term_synonyms: dict[str, set[str]] = {}
        patterns: list[tuple[str, str]] = []
        for word, terms in terms_of.items():
            others = frozenset(related[word])
            pattern = _pattern(word)
            if pattern is not None:
                self._phrases[word] = Phrase(word, terms, others)
                patterns.append((word, pattern))
            if len(terms) == 1:
                self._term_synonyms.setdefault(terms[0], set()).update(others)
        patterns.sort(key=lambda item: -len(item[0]))
        self._matcher = re.compile("|".join(f"(?:{p})" for _, p in patterns)) if patterns else None

    def synonyms_of(self, term: str) -> frozenset[str]:
        """The terms that mean the same as a search term (empty when the term has none)."""
        return frozenset(self._term_synonyms.get(term, ()))

    def find_phrases(self, text: str) -> tuple[list[Phrase], str]:
        """The vocabulary words written in text, and text with them blanked out."""
        normalised = normalize(expand_contractions(text))
        if self._matcher is None:
            return [], normalised
        found: list[Phrase] = []

        def take(match: re.Match[str]) -> str:
            surface = match.group(0)
            phrase = next(
                (self._phrases[c] for c in _spellings(surface) if c in self._phrases), None
            )
            if phrase is None:
                return surface
            found.append(phrase)
            return " "

        return found, self._matcher.sub(take, normalised)


def _spellings(surface: str) -> list[str]:
    """The surface, then its singulars ("game nights" matched the phrase "game night")."""
    if not surface.isascii():
        return [surface]
    return [surface, surface.removesuffix("s"), surface.removesuffix("es")]


@cache
def builtin_vocabulary() -> Vocabulary:
    """The vocabulary shipped with the bot, built once per process."""
    return Vocabulary(builtin_groups())
