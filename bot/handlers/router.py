"""Keyword routing of a mention to a handler by scoring cues, preferring the conversation
handler (chat) or the general one."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from bot.handlers.cues import GENERAL, GENERAL_CUES
from bot.handlers.shapes import (
    CLOCK,
    DAY,
    PAST,
    PLACE,
    QUESTION,
    REQUEST,
    SHORT,
    SIGNALS,
    VERBLESS,
    Cue,
)
from bot.handlers.spec import HandlerSpec
from bot.handlers.typos import correct
from bot.text.analysis import Token, katakana_to_hiragana, normalize, tokenize

__all__ = ["GENERAL", "Route", "Router", "handler_key"]

# A tool handler needs at least this score, and more than any other handler: chat sent to a
# tool handler (reminder, weather) is worse than anything sent to the general one.
MIN_TOOL_SCORE = 3
# Tokens that may follow the last verb of a sentence without changing its tense.
_TRAILING_POS = {"助詞", "記号", "フィラー", "感動詞"}
_VERB_POS = {"動詞", "形容詞"}
# 頼んだ, 任せた: past in form, a request in use.
_ASKING_VERBS = {"頼む", "任せる"}
# "大阪 気温", "weather in osaka": a bare noun phrase asks for the thing it names.
_SHORT_WORDS, _SHORT_CHARS = 4, 24
_PLACE_DETAIL = "固有名詞,地域"
_LOANWORD_END = re.compile(r"[ァ-ヺ]{2}ー$")


def handler_key(handler: str, also: str | None = None) -> str:
    """A run's handler: `chat`, or `chat+reminder` when it also offers a runner-up's tools."""
    return f"{handler}+{also}" if also else handler


@dataclass(frozen=True)
class Route:
    """Where a message goes and the cues that sent it there (for logs and tests).

    `also` is a tool handler that scored without winning: the chosen handler offers its tools
    too, so a request the router misread can still set the reminder or look up the forecast.
    """

    handler: str
    rule: str
    also: str | None = None

    @property
    def name(self) -> str:
        """The handler a run uses (see handler_key)."""
        return handler_key(self.handler, self.also)


@dataclass(frozen=True)
class _Reading:
    folded: str
    lemmas: frozenset[str]
    signals: frozenset[str]


def _ends_in_past(tokens: list[Token]) -> bool:
    """Whether it ends in 〜た (遅刻したわ, 頑張った！, 泣いた): a story, not a request.

    Not 頼んだ / 任せた (a request) nor 〜たって (言うたって: "tell them" in the west)."""
    following = ""
    for index in range(len(tokens) - 1, -1, -1):
        token = tokens[index]
        if token.pos in _TRAILING_POS or not any(ch.isalnum() for ch in token.surface):
            following = token.surface
            continue
        if token.surface in {"w", "ww", "笑", "ー"}:
            continue
        if token.pos != "助動詞" or token.base != "た" or token.surface == "たら":
            return False
        before = tokens[index - 1].base if index else ""
        return not following.startswith("って") and before not in _ASKING_VERBS
    return False


def _applies(item: Cue, reading: _Reading, signals: frozenset[str]) -> bool:
    if not item.needs <= signals or (item.needs_any and not item.needs_any & signals):
        return False
    if item.unless & signals:
        return False
    if item.pattern is None and not item.lemmas:
        return True
    return bool(item.lemmas & reading.lemmas) or (
        item.pattern is not None and item.pattern.search(reading.folded) is not None
    )


def _ends_in_loanword(text: str) -> bool:
    return _LOANWORD_END.search(text.strip()) is not None


def _read(text: str) -> _Reading:
    corrected = correct(normalize(text))
    folded = katakana_to_hiragana(corrected).strip()
    tokens = tokenize(corrected)
    lemmas = frozenset(katakana_to_hiragana(t.base) for t in tokens)
    # A long vowel ending a katakana word (タイマー) is no drawn-out remark (暑いー).
    shape = folded[:-1] if _ends_in_loanword(corrected) else folded
    reading = _Reading(shape, lemmas, frozenset())
    signals: set[str] = set()
    for item in SIGNALS:
        if _applies(item, reading, frozenset(signals)):
            signals.add(item.target)
    if QUESTION not in signals and _ends_in_past(tokens):
        signals.add(PAST)
    if any(t.pos_detail.startswith(_PLACE_DETAIL) for t in tokens):
        signals.add(PLACE)
    if not any(t.pos in _VERB_POS for t in tokens):
        signals.add(VERBLESS)
    if len(folded.split()) <= _SHORT_WORDS and len(folded) <= _SHORT_CHARS:
        signals.add(SHORT)
    return _Reading(folded, lemmas, frozenset(signals))


class Router:
    """Routes a mention's text by the cues of the features' handlers (and any other cues a
    feature adds), then the general handler's."""

    def __init__(self, handlers: Sequence[HandlerSpec], cues: Sequence[Cue] = ()) -> None:
        self.cues = (*(c for h in handlers for c in h.cues), *cues, *GENERAL_CUES)
        # In the features' order: the first of two tool handlers scoring alike wins.
        self.tools = tuple(h.name for h in handlers if h.role == "tools")
        talkers = [h.name for h in handlers if h.role == "conversation"]
        if len(talkers) > 1:
            raise ValueError(f"one conversation handler at most, not {talkers}")
        self.conversation = talkers[0] if talkers else None

    def route(self, text: str) -> Route:
        """Pick the handler for a mention's text (without the mention itself)."""
        return _route(self.cues, self.tools, self.conversation, text)


def _route(cues: Sequence[Cue], tools: tuple[str, ...], talk: str | None, text: str) -> Route:
    reading = _read(text)
    found: dict[str, list[Cue]] = defaultdict(list)
    for item in cues:
        if _applies(item, reading, reading.signals):
            found[item.target].append(item)
    names = (*tools, *([talk] if talk is not None else []), GENERAL)
    total = {name: sum(c.weight for c in found[name]) for name in names}

    def because(name: str) -> str:
        return " + ".join(c.name for c in found[name])

    def runner_up(chosen: str) -> str | None:
        # A tool handler that scored enough to win on its own, had nothing outscored it.
        others = [name for name in tools if name != chosen]
        if not others:
            return None
        best = max(others, key=lambda n: total[n])
        return best if total[best] >= MIN_TOOL_SCORE else None

    if tools:
        tool = max(tools, key=lambda name: total[name])
        rivals = [total[name] for name in total if name != tool]
        if total[tool] >= MIN_TOOL_SCORE and total[tool] > max(rivals):
            return Route(tool, because(tool), runner_up(tool))
    if talk is not None and total[talk] > total[GENERAL]:
        return Route(talk, because(talk), runner_up(talk))
    if total[GENERAL] > 0:
        return Route(GENERAL, because(GENERAL))
    # Nothing matched: a question, a request, or a plan with a time ("明日9時に会議") that may
    # want a reminder goes to the handler with every read-only tool and the reminders; a remark
    # goes to the conversation handler.
    if QUESTION in reading.signals or REQUEST in reading.signals:
        return Route(GENERAL, "a question or request without keywords")
    if reading.signals & {CLOCK, DAY}:
        return Route(GENERAL, "a plan with a time, without keywords")
    return Route(talk or GENERAL, "a remark without keywords")
