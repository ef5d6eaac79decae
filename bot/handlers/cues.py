"""The general handler's name, and the cues that score it; every other handler and its cues
are a feature's (the router receives them through the feature list).

Patterns run on the normalised text (see bot.handlers.shapes); weights add up per handler.
"""

from __future__ import annotations

from bot.handlers.shapes import (
    KNOWLEDGE,
    PAST,
    TOPICAL,
    WHEN,
    Cue,
    cue,
)

__all__ = ["GENERAL", "GENERAL_CUES"]

# The shared default: questions, and every request no feature's handler scored.
GENERAL = "general"

GENERAL_CUES: tuple[Cue, ...] = (
    # The notebook's tools live in the general (and chat) handler: "雨の日の集合場所をメモして"
    # must not reach the weather handler, which cannot write notes; "リマインドして" still wins.
    cue(
        "notebook words",
        GENERAL,
        4,
        regex=r"(?<![a-z])memo(?![a-z])",
        words="めも|のーと|備忘録|note this|note that|note it|note down|take a note|"
        "make a note|the notes|our notes|my notes|notebook|write this down|write that down|"
        "write it down|jot",
        lemmas="メモる|書き留める",
    ),
    cue("a knowledge question", GENERAL, 3, needs=KNOWLEDGE, unless=PAST),
    cue("about the server", GENERAL, 3, needs=TOPICAL, unless=PAST),
    # Below a weather cue: "洗濯物いつ干せばいい？" asks the forecast.
    cue("when something happens", GENERAL, 2, needs=WHEN, unless=PAST),
    cue("do you remember", GENERAL, 3, regex=r"覚えて(る|ます|い(る|ます))\s*(\?|？|か)"),
)
