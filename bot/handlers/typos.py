"""Typo tolerance for the cue words: a word one edit away from a cue word reads as that word.

The router runs this on the normalised text before its cues, so `remider`, `wether`, `アラ－ム`
and `リマインドー` reach the cues written for `reminder`, `weather`, `アラーム` and `リマインド`.
Only longer cue words are corrected, and common words one edit away from one are left alone.
"""

from __future__ import annotations

import re
from functools import cache

from bot.text.analysis import katakana_to_hiragana

# English cue words worth correcting (five letters or more: shorter ones sit one edit away from
# too many real words).
_ENGLISH = (
    "remind",
    "reminder",
    "reminders",
    "alarm",
    "timer",
    "weather",
    "forecast",
    "temperature",
    "umbrella",
    "tomorrow",
    "tonight",
    "typhoon",
    "humid",
    "humidity",
    "pollen",
    "laundry",
    "minutes",
    "schedule",
    "notify",
    "raining",
    "snowing",
    "freezing",
)
# Real words one edit away from a cue word: they keep their meaning.
_KEEP = frozenset(
    {"rewind", "remand", "remains", "reminds", "rewinds", "alarms", "whether", "humor", "humio"}
    | {"raining", "training", "snowing", "freezing", "forecasts", "minute", "notice", "notion"}
    | {"timers", "times", "timed", "tiger", "tamer", "timber", "tier", "timor", "liner", "toner"}
    | {"tonights", "pillow", "pollens", "weathers", "umbrellas", "reminded", "reminding"}
)
# Katakana cue words, folded to hiragana like the text.
_KANA = ("りまいんど", "りまいんだー", "あらーむ", "たいまー", "もーにんぐこーる", "すけじゅーる")
_KANA_KEEP = frozenset({"たいむ", "たいや", "あらーと"})

_ASCII_WORD = re.compile(r"[a-z]{4,}")
_KATAKANA_RUN = re.compile(r"[ァ-ヺー]{3,}")
# Dashes typed for the long vowel inside a katakana word: アラ－ム, タイマ-.
_DASH_IN_KANA = re.compile(r"(?<=[ァ-ヺ])[-‐‑–—―−](?![ぁ-ゖ])")


def _within_one_edit(a: str, b: str) -> bool:
    """Whether a and b differ by at most one insertion, deletion, substitution or swap."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diffs = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        if len(diffs) == 1:
            return True
        first, second = diffs[0], diffs[-1]
        swapped = a[first] == b[second] and a[second] == b[first]
        return len(diffs) == 2 and second == first + 1 and swapped
    shorter, longer = (a, b) if len(a) < len(b) else (b, a)
    pairs = zip(shorter, longer, strict=False)
    index = next((i for i, (x, y) in enumerate(pairs) if x != y), len(shorter))
    return shorter[index:] == longer[index + 1 :]


@cache
def _english(word: str) -> str:
    if word in _ENGLISH or word in _KEEP:
        return word
    for target in _ENGLISH:
        if len(target) >= 5 and _within_one_edit(word, target):
            return target
    return word


@cache
def _kana(run: str) -> str:
    folded = katakana_to_hiragana(run)
    if folded in _KANA or folded in _KANA_KEEP:
        return run
    for target in _KANA:
        if _within_one_edit(folded, target):
            # Back in katakana, so the tokenizer reads it as the loanword.
            return "".join(chr(ord(ch) + 0x60) if "ぁ" <= ch <= "ゖ" else ch for ch in target)
    return run


def fix_long_vowels(text: str) -> str:
    """Read a dash typed inside or after a katakana word as the long vowel mark ー."""
    return _DASH_IN_KANA.sub("ー", text)


def correct(text: str) -> str:
    """The normalised text with cue words typed one edit off written as the cue word."""
    text = _KATAKANA_RUN.sub(lambda m: _kana(m.group()), fix_long_vowels(text))
    return _ASCII_WORD.sub(lambda m: _english(m.group()), text)
