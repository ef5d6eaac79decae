"""Member-facing sentences in Japanese and English, and which of the two a member reads.

Every sentence a member sees is a `Text` in one of the catalog modules (`answers`, `commands`,
`posts`); code picks one language per member: the interaction's locale for slash commands and
buttons, the language of the member's message for replies, the server's default language for
posts to a channel.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, get_args

Language = Literal["ja", "en"]
LANGUAGES: tuple[Language, ...] = get_args(Language)

# Kana or kanji (CJK ideographs, the iteration mark, half-width katakana): Japanese.
_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\u3005\uff66-\uff9f]")


@dataclass(frozen=True)
class Text:
    """One sentence in both languages; `{fields}` are filled when it is said."""

    ja: str
    en: str

    def __call__(self, language: Language, **fields: Any) -> str:
        """The sentence in `language`, its fields filled."""
        return self.form(language).format(**fields)

    def form(self, language: Language) -> str:
        """The unfilled form in `language`."""
        return self.ja if language == "ja" else self.en

    def fields(self) -> tuple[set[str], set[str]]:
        """The field names of each form (a check that both forms take the same ones)."""
        return _field_names(self.ja), _field_names(self.en)


class Refusal(Exception):
    """Something refused, as a sentence a member reads in their language; str() is the
    English form, for logs."""

    def __init__(self, text: Text, **fields: Any) -> None:
        super().__init__(text("en", **fields) if fields else text.en)
        self.text = text
        self.fields = fields

    def said(self, language: Language) -> str:
        """The sentence in language (a sentence without fields is read as written)."""
        return self.text(language, **self.fields) if self.fields else self.text.form(language)


def _field_names(form: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(form) if name}


def moment(instant: datetime, style: str = "F") -> str:
    """A Discord timestamp (`<t:…:F>`): each member reads it in their own zone and language."""
    return f"<t:{int(instant.timestamp())}:{style}>"


def language_of_text(text: str, fallback: Language = "ja") -> Language:
    """The language of a member's message: any kana or kanji is Japanese; other letters
    English; a message without letters (an emoji, a number) keeps `fallback`."""
    if _JAPANESE.search(text):
        return "ja"
    if any(char.isalpha() for char in text):
        return "en"
    return fallback


def language_of_locale(locale: object) -> Language:
    """The language for a Discord locale (`ja` → Japanese, anything else English)."""
    value = str(getattr(locale, "value", locale) or "")
    return "ja" if value.lower().startswith("ja") else "en"


def parse_language(value: str) -> Language:
    """`ja` or `en` (as a setting or a stored value spells it); ValueError otherwise."""
    cleaned = value.strip().lower()
    for language in LANGUAGES:
        if cleaned == language:
            return language
    raise ValueError(f"expected one of {', '.join(LANGUAGES)}, got {value!r}")
