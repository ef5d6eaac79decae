"""How members ask for work on a schedule: the cue that sends it to the general handler, which
offers the task tools.

Patterns run on the normalised text (see bot.handlers.shapes); weights add up per handler.
"""

from __future__ import annotations

from bot.handlers.cues import GENERAL
from bot.handlers.shapes import Cue, cue

TASK_CUES: tuple[Cue, ...] = (
    # Work the model does on a schedule ("毎朝…まとめて投稿して", "every Friday summarise…") is
    # a scheduled task: the general handler offers its tools (a reminder only repeats text).
    cue(
        "work on a schedule",
        GENERAL,
        30,
        regex=r"(?=.*(毎(朝|晩|夜|日|週|月)|平日|(?<![a-z])(every|each)\s+(day|morning|evening|"
        r"night|week|weekday|month|mon|tue|wed|thu|fri|sat|sun)|(?<![a-z])(daily|weekly)(?![a-z])))"
        r"(?=.*(まとめ|一覧|要約|投稿|ポスト|サマリ|ダイジェスト|(?<![a-z])(summar|digest|recap|"
        r"round\s*-?up|post\s+(today|the|a|an|this|our|my|me)|list\s+(today|the|my|our|this))))",
    ),
)
