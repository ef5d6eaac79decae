"""Which of the two languages a member wrote in: kana or kanji means Japanese, else English."""

from __future__ import annotations

import re
from typing import Literal

Language = Literal["ja", "en"]

# Hiragana, katakana (full and half width) and the CJK ideographs Japanese writes with.
_JAPANESE = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f\u3400-\u4dbf\u4e00-\u9fff]")


def language_of(text: str) -> Language:
    """ "ja" when the text has any kana or kanji, else "en"."""
    return "ja" if _JAPANESE.search(text) else "en"
