"""Search terms for the knowledge base: janome base forms, light English stemming, bigrams."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from bot.knowledge.bigrams import bigram_counts
from bot.knowledge.documents import parse_document
from bot.knowledge.vocabulary import ENGLISH_STOP_WORDS, JAPANESE_STOP_WORDS
from bot.text import content_terms, katakana_to_hiragana, normalize

# Bump when terms or weights change: cached analyses of another version are re-tokenised.
ANALYZER_VERSION = 3
# A term in the file title, a tag or the section's heading path counts as this many mentions.
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
    """A light English stemmer: report/reports/reported/reporting → report."""
    if not word.isascii() or not word.isalpha() or len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
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


def terms_and_runs(text: str) -> tuple[list[str], dict[str, tuple[str, ...]]]:
    """Search terms of text, and each whole katakana run added with the pieces janome cut it in."""
    text = _ACRONYM_PLURAL.sub(r"\1", expand_contractions(text))
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


@dataclass(frozen=True, slots=True)
class AnalysedSection:
    """One section with the weighted term counts the index ranks it by."""

    heading_path: tuple[str, ...]
    text: str
    line: int
    terms: dict[str, int]
    # Character bigrams of the Japanese terms: the sub-word field (年末 inside 年末年始).
    bigrams: dict[str, int]

    @property
    def heading(self) -> str:
        """The heading path joined for display."""
        return " > ".join(self.heading_path)


@dataclass(frozen=True, slots=True)
class DocumentAnalysis:
    """What tokenising a file produced, cached as JSON so an unchanged file is not re-tokenised."""

    title: str
    tags: tuple[str, ...]
    sections: tuple[AnalysedSection, ...]

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict for the database cache."""
        return {
            "title": self.title,
            "tags": list(self.tags),
            "sections": [
                {
                    "heading": list(s.heading_path),
                    "text": s.text,
                    "line": s.line,
                    "terms": s.terms,
                    "bigrams": s.bigrams,
                }
                for s in self.sections
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DocumentAnalysis:
        """Rebuild an analysis from its cached JSON."""
        return cls(
            title=str(data["title"]),
            tags=tuple(data["tags"]),
            sections=tuple(
                AnalysedSection(
                    tuple(s["heading"]),
                    s["text"],
                    int(s["line"]),
                    dict(s["terms"]),
                    dict(s.get("bigrams", {})),
                )
                for s in data["sections"]
            ),
        )


def analyse_document(text: str, fallback_title: str) -> DocumentAnalysis:
    """Parse and tokenise one file (the slow part: janome reads ~30-70k characters a second)."""
    parsed = parse_document(text, fallback_title)
    document_fields = list(dict.fromkeys(search_terms(" ".join((parsed.title, *parsed.tags)))))
    heading_cache: dict[tuple[str, ...], list[str]] = {}
    sections: list[AnalysedSection] = []
    for section in parsed.sections:
        fields = heading_cache.get(section.heading_path)
        if fields is None:
            # The section's own headings count on top of the title's words they repeat (配信・
            # 画面共有 > 画面共有のしかた), so the answering section beats its file's intro.
            own = " ".join(h for h in section.heading_path if h != parsed.title)
            fields = document_fields + list(dict.fromkeys(search_terms(own)))
            heading_cache[section.heading_path] = fields
        body = search_terms(section.text)
        counts = Counter(body)
        for term in fields:
            counts[term] += FIELD_WEIGHT
        bigrams = bigram_counts(body)
        for gram, count in bigram_counts(fields).items():
            bigrams[gram] += FIELD_WEIGHT * count
        sections.append(
            AnalysedSection(
                section.heading_path, section.text, section.line, dict(counts), dict(bigrams)
            )
        )
    return DocumentAnalysis(parsed.title, parsed.tags, tuple(sections))
