"""Reminders about a message: the typed time read as in a mention, the first line quoted, and the
reminder service's own rules (future times, the per-member limit) on every engine."""

from __future__ import annotations

from zoneinfo import ZoneInfo

import pytest

from bot.reminders.about_message import MessageAbout, MessageReminders, first_line, reminder_text
from bot.reminders.errors import TimeInPast, TooManyReminders, UnreadableWhen
from bot.reminders.service import ReminderService
from bot.runtime.clock import ManualClock
from bot.settings import Settings
from bot.storage.engine import Database
from tests.reminders.support import ALICE, CHANNEL, GUILD, TOKYO

MESSAGE = MessageAbout(GUILD, CHANNEL, 9001, "\n  明日の会議は10時から  \n資料を忘れずに")


class ScriptedModel:
    """Answers each call with the next scripted text and records what it was asked."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[str, str, int | None, int]] = []

    async def __call__(self, system: str, user: str, guild_id: int | None, user_id: int) -> str:
        self.asked.append((system, user, guild_id, user_id))
        return self.answers.pop(0)


def reminders(
    database: Database, clock: ManualClock, model: ScriptedModel, **limits: int
) -> MessageReminders:
    service = ReminderService(database.sessions, clock, Settings(**limits))  # type: ignore[arg-type]
    return MessageReminders(service, model, clock)


def test_the_first_line_with_text_is_quoted_clipped_or_a_files_name_stands_in() -> None:
    assert first_line(MESSAGE) == "明日の会議は10時から"
    assert first_line(MessageAbout(GUILD, CHANNEL, 1, "x" * 200)).endswith("…")
    assert first_line(MessageAbout(GUILD, CHANNEL, 1, "", ("plan.pdf",))) == "📎 plan.pdf"
    assert reminder_text(MESSAGE, "", "ja") == "「明日の会議は10時から」"
    assert reminder_text(MESSAGE, "返事する", "en") == "返事する “明日の会議は10時から”"


async def test_an_iso_time_needs_no_model_and_a_natural_one_is_read_by_it(
    database: Database, clock: ManualClock
) -> None:
    model = ScriptedModel("It is 2026-11-21T09:00.")
    made = reminders(database, clock, model)

    assert await made.read_when("2026-11-21T10:30", TOKYO, GUILD, ALICE) == "2026-11-21T10:30"
    assert model.asked == []
    assert await made.read_when("明日の9時", TOKYO, GUILD, ALICE) == "2026-11-21T09:00"
    ((system, user, guild_id, user_id),) = model.asked
    assert "Setting reminders" in system and "Now: 2026-11-20T10:00+09:00" in system
    assert (user, guild_id, user_id) == ("明日の9時", GUILD, ALICE)


async def test_a_time_the_model_cannot_name_or_one_already_past_is_refused(
    database: Database, clock: ManualClock
) -> None:
    made = reminders(database, clock, ScriptedModel("NONE"))

    with pytest.raises(UnreadableWhen):
        await made.create(
            user_id=ALICE,
            user_name="alice",
            message=MESSAGE,
            when="そのうち",
            note="",
            tz=TOKYO,
            language="ja",
        )
    with pytest.raises(UnreadableWhen):
        await made.read_when("   ", TOKYO, GUILD, ALICE)
    with pytest.raises(TimeInPast):
        await made.create(
            user_id=ALICE,
            user_name="alice",
            message=MESSAGE,
            when="2026-11-19T09:00",
            note="",
            tz=TOKYO,
            language="ja",
        )


async def test_the_reminder_links_to_the_message_within_the_members_limit(
    database: Database, clock: ManualClock
) -> None:
    made = reminders(database, clock, ScriptedModel(), reminder_max_per_user=1)
    new_york = ZoneInfo("America/New_York")

    view = await made.create(
        user_id=ALICE,
        user_name="alice",
        message=MESSAGE,
        when="2026-11-21T09:00",
        note="",
        tz=new_york,
        language="ja",
    )
    with pytest.raises(TooManyReminders):
        await made.create(
            user_id=ALICE,
            user_name="alice",
            message=MESSAGE,
            when="2026-11-22T09:00",
            note="",
            tz=new_york,
            language="ja",
        )

    assert (view.channel_id, view.origin_message_id, view.guild_id) == (CHANNEL, 9001, GUILD)
    assert view.content == "「明日の会議は10時から」"
    assert view.when_iso == "2026-11-21T09:00-05:00"
