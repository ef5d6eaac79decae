"""Search terms: janome base forms, stop words removed, light English stemming, katakana runs."""

from __future__ import annotations

import re

from bot.search.vocabulary import ENGLISH_STOP_WORDS, JAPANESE_STOP_WORDS
from bot.text.analysis import content_terms, katakana_to_hiragana, normalize

# A term in a title, a tag or a heading counts as this many mentions of it in the body.
FIELD_WEIGHT = 3

_ASCII = re.compile(r"[a-z0-9][a-z0-9_'+-]*")
_KATAKANA_RUN = re.compile(r"[ァ-ヺー]{2,}")
# "DMs", "URLs", "VCs": the plural of an acronym, which the stemmer cannot tell from a word.
_ACRONYM_PLURAL = re.compile(r"\b([A-Z]{2,})s\b")
# "isn't", "I'm", "we'll": the clitic would otherwise survive as a one-letter term, and "isn't
# working" must still read as the phrase "not working".
_NEGATION = re.compile(r"(?i)\b(can|won)'t\b|(?<=[a-z])n't\b")
_CLITIC = re.compile(r"(?i)(?<=[a-z])'(?:s|re|m|ll|ve|d)\b")


def stem(word: str) -> str:
    """A light English stemmer: report/reports/reported/reporting → report, and invite/invites/
    invited/inviting → invit (a final silent e goes, as the suffixes drop it)."""
    stemmed = _strip_suffix(word)
    if len(stemmed) >= 5 and stemmed.endswith("e") and stemmed[-2] not in "aeiou":
        return stemmed[:-1]
    return stemmed


def _strip_suffix(word: str) -> str:
    if not word.isascii() or not word.isalpha() or len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("ings") and len(word) >= 7:
        word = word[:-1]  # warnings → warning → warn, like the singular
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


def expand_contractions(text: str) -> str:
    """English contractions spelt out: "isn't" → "is not", "can't" → "can not", "I'm" → "I"."""
    text = _NEGATION.sub(
        lambda m: {"can": "can", "won": "will"}.get((m.group(1) or "").lower(), "") + " not",
        text.replace("’", "'"),
    )
    return _CLITIC.sub("", text)


def singular_acronyms(text: str) -> str:
    """Acronyms in the plural made singular ("DMs" → "DM"), before lower case hides them."""
    return _ACRONYM_PLURAL.sub(r"\1", text)


def terms_and_runs(text: str) -> tuple[list[str], dict[str, tuple[str, ...]]]:
    """Search terms of text, and each whole katakana run added with the pieces janome cut it in."""
    text = singular_acronyms(expand_contractions(text))
    terms: list[str] = []
    for term in content_terms(text):
        if _ASCII.fullmatch(term):
            stemmed = stem(term)
            if (
                len(term) > 1
                and term not in ENGLISH_STOP_WORDS
                and stemmed not in ENGLISH_STOP_WORDS
            ):
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
    return terms_and_runs(text)[0]
