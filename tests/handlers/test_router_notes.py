"""Note requests reach the general handler, which has the notebook tools."""

from __future__ import annotations

import pytest

from bot.app.features import route
from bot.handlers.router import GENERAL
from bot.reminders.handler import REMINDER


@pytest.mark.parametrize(
    "text",
    [
        "これメモしといて",
        "メモ見せて",
        "めもって",
        "雨の日の集合場所をメモして",
        "暇なときに読む本リストをメモっといて",
        "ノートに書いといて: 次回は土曜",
        "note this down: meet at the station at 8",
        "show me our notes",
        "can you write this down for the team",
    ],
)
def test_note_requests_go_to_the_general_handler(text: str) -> None:
    assert route(text).handler == GENERAL


def test_a_reminder_that_mentions_a_note_stays_a_reminder() -> None:
    assert route("明日9時にメモを見返すようリマインドして").handler == REMINDER
