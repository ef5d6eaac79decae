"""Short excerpts of a section around the words a question matched."""

from __future__ import annotations

import re
from collections.abc import Iterable

from bot.text.analysis import katakana_to_hiragana

SNIPPET_CHARS = 200
_SPACE = re.compile(r"\s+")


def _positions(folded: str, term: str) -> list[int]:
    found = [m.start() for m in re.finditer(re.escape(term), folded)]
    if not found and len(term) >= 3 and not term.isascii():
        # Verbs are indexed by their dictionary form (入る) but written conjugated (入って).
        found = [m.start() for m in re.finditer(re.escape(term[:-1]), folded)]
    return found


def make_snippet(text: str, terms: Iterable[str], width: int = SNIPPET_CHARS) -> str:
    """About width characters of text, placed to show as many of the matched terms as possible."""
    folded = katakana_to_hiragana(text.lower())
    if len(folded) != len(text):
        folded = text  # a case mapping changed the length: positions would not line up
    hits = sorted((pos, term) for term in set(terms) for pos in _positions(folded, term))
    start = 0
    if hits and len(text) > width:
        best = -1
        for pos, _ in hits:
            window_start = max(0, pos - width // 4)
            covered = {t for p, t in hits if window_start <= p < window_start + width}
            if len(covered) > best:
                best, start = len(covered), window_start
    piece = text[start : start + width]
    snippet = _SPACE.sub(" ", piece).strip()
    if start > 0:
        snippet = "…" + snippet
    if start + width < len(text):
        snippet += "…"
    return snippet
