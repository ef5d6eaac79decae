"""The one way text is shortened for people: cut below a limit and marked with an ellipsis."""

from __future__ import annotations

import re

ELLIPSIS = "…"
_SPACE = re.compile(r"\s+")


def clip(text: str, limit: int, *, flatten: bool = False) -> str:
    """text if it fits in limit characters, else cut to limit - 1 and ended with "…".

    flatten first folds every run of whitespace (newlines included) into one space, for
    one-line places such as a reminder's title in a list.
    """
    if flatten:
        text = _SPACE.sub(" ", text).strip()
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)].rstrip() + ELLIPSIS
