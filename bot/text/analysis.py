"""Japanese and English text analysis shared by routing, the word pool and the knowledge base."""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.text.dictionary import compact

if TYPE_CHECKING:
    from janome.tokenizer import Tokenizer

# janome's Tokenizer holds ~40 MB (compacted, see bot/text/dictionary.py) and is not documented
# as thread-safe: one per process, used under a lock (in practice only by the text worker thread,
# see bot/runtime/worker.py).
_tokenizer_lock = threading.Lock()
_shared: list[Tokenizer] = []

_ASCII_WORD = re.compile(r"[a-z0-9][a-z0-9_'+-]*")

# Texts up to a mention's length are remembered (files are analysed once per content hash
# elsewhere and would only crowd the mentions out).
_REMEMBERED_TEXT_CHARS = 2000
_REMEMBERED_TEXTS = 256
_remembered: OrderedDict[str, tuple[Token, ...]] = OrderedDict()
_remembered_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class Token:
    """One morpheme: its surface, dictionary (base) form and coarse part of speech."""

    surface: str
    base: str
    pos: str
    pos_detail: str
    reading: str


def normalize(text: str) -> str:
    """NFKC (full-width ASCII and half-width kana folded) and lower case."""
    return unicodedata.normalize("NFKC", text).lower()


def katakana_to_hiragana(text: str) -> str:
    """Fold katakana to hiragana so カサ and かさ compare equal."""
    return "".join(chr(ord(ch) - 0x60) if "ァ" <= ch <= "ヶ" else ch for ch in text)


def _tokenizer() -> Tokenizer:
    """The shared tokenizer; call with _tokenizer_lock held."""
    if not _shared:
        from janome.tokenizer import Tokenizer

        tokenizer = Tokenizer()
        compact(tokenizer)
        _shared.append(tokenizer)
    return _shared[0]


def tokenize(text: str) -> list[Token]:
    """Morphemes of normalised text, with base forms.

    A mention is read by the router, the knowledge base, the notes and the word pool; short
    texts are analysed once and remembered, so each of them reuses the same tokens.
    """
    normalized = normalize(text)
    if len(normalized) > _REMEMBERED_TEXT_CHARS:
        return list(_analyse(normalized))
    with _remembered_lock:
        tokens = _remembered.get(normalized)
        if tokens is not None:
            _remembered.move_to_end(normalized)
            return list(tokens)
    tokens = _analyse(normalized)
    with _remembered_lock:
        _remembered[normalized] = tokens
        while len(_remembered) > _REMEMBERED_TEXTS:
            _remembered.popitem(last=False)
    return list(tokens)


def _analyse(normalized: str) -> tuple[Token, ...]:
    with _tokenizer_lock:
        analysed = list(_tokenizer().tokenize(normalized))
    tokens: list[Token] = []
    for item in analysed:
        pos_parts = item.part_of_speech.split(",")
        base = item.base_form if item.base_form != "*" else item.surface
        reading = item.reading if item.reading != "*" else item.surface
        tokens.append(Token(item.surface, base, pos_parts[0], ",".join(pos_parts[1:]), reading))
    return tuple(tokens)


def base_forms(text: str) -> list[str]:
    """Dictionary forms of every morpheme (for keyword matching)."""
    return [t.base for t in tokenize(text)]


_CONTENT_POS = {"名詞", "動詞", "形容詞", "副詞", "形容動詞"}
_SKIP_DETAIL = ("非自立", "代名詞", "接尾", "数")


def content_terms(text: str) -> list[str]:
    """Search terms: base forms of content words plus lower-cased ASCII words and numbers."""
    terms: list[str] = []
    for token in tokenize(text):
        if not any(ch.isalnum() for ch in token.base):
            continue
        if _ASCII_WORD.fullmatch(token.base):
            terms.append(token.base)
        elif token.pos in _CONTENT_POS and not token.pos_detail.startswith(_SKIP_DETAIL):
            terms.append(katakana_to_hiragana(token.base) if len(token.base) > 1 else token.base)
    return terms


def warm_up() -> None:
    """Load the dictionary now, so the first message does not pay for it."""
    tokenize("準備")
