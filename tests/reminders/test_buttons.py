"""Snooze and done under a delivered reminder: the owner may use them, anyone else is refused."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import update

from bot.reminders.button_actions import ReminderButtons
from bot.reminders.display import ReminderView
from bot.reminders.service import ReminderService
from bot.reminders.table import Reminder, ReminderState
from bot.runtime.clock import ManualClock
from bot.schedule.repeat import RepeatRule
from bot.storage.engine import Database
from tests.reminders.support import ALICE, BOB, CHANNEL, GUILD, TOKYO


@pytest.fixture
def buttons(service: ReminderService, clock: ManualClock) -> ReminderButtons:
    return ReminderButtons(service, clock)


async def delivered(
    service: ReminderService, database: Database, repeat: RepeatRule | None = None
) -> ReminderView:
    """A reminder as the delivery engine leaves it after posting."""
    view = await service.create(
        user_id=ALICE,
        user_display_name="alice",
        guild_id=GUILD,
        channel_id=CHANNEL,
        when="2026-11-20T12:00",
        content="薬を飲む",
        tz=TOKYO,
        repeat=repeat,
    )
    values: dict[str, object] = {"delivered_message_id": 5555}
    if repeat is None:
        values["state"] = ReminderState.DELIVERED
    else:
        values.update(occurrence=2, due_at=datetime(2026, 11, 21, 3, 0, tzinfo=UTC))
    async with database.sessions() as session, session.begin():
        await session.execute(update(Reminder).where(Reminder.id == view.id).values(**values))
    return view


async def row_of(database: Database, reminder_id: int) -> Reminder:
    async with database.sessions() as session:
        row = await session.get(Reminder, reminder_id)
    assert row is not None
    return row


async def test_owner_snoozes_a_delivered_reminder_with_a_fresh_nonce(
    buttons: ReminderButtons, service: ReminderService, database: Database, clock: ManualClock
) -> None:
    view = await delivered(service, database)
    clock.set(datetime(2026, 11, 20, 3, 0, tzinfo=UTC))
    reply = await buttons.snooze(view.id, ALICE, timedelta(minutes=10), TOKYO)
    assert reply.ok
    assert reply.message == "⏰ 11月20日(金) 12:10 にもう一度お知らせします。"
    row = await row_of(database, view.id)
    assert row.state == ReminderState.PENDING
    assert row.due_at == row.next_attempt_at == datetime(2026, 11, 20, 3, 10, tzinfo=UTC)
    # Occurrence 2 gives the next post the nonce r1o2, distinct from the first post.
    assert row.occurrence == 2


async def test_someone_else_cannot_snooze_or_finish_it(
    buttons: ReminderButtons, service: ReminderService, database: Database
) -> None:
    view = await delivered(service, database)
    for reply in (
        await buttons.snooze(view.id, BOB, timedelta(minutes=10), TOKYO),
        await buttons.done(view.id, BOB, TOKYO),
    ):
        assert not reply.ok
        assert "頼んだ人と、リマインドされる人だけ" in reply.message
    english = await buttons.done(view.id, BOB, TOKYO, "en")
    assert english.message == (
        "Only the person who asked for this reminder, or the one it reminds, can use these buttons."
    )
    assert (await row_of(database, view.id)).state == ReminderState.DELIVERED


async def test_snoozing_a_repeat_adds_a_one_time_copy_and_keeps_the_series(
    buttons: ReminderButtons, service: ReminderService, database: Database, clock: ManualClock
) -> None:
    view = await delivered(service, database, RepeatRule(kind="daily"))
    clock.set(datetime(2026, 11, 20, 3, 0, tzinfo=UTC))
    reply = await buttons.snooze(view.id, ALICE, timedelta(hours=1), TOKYO)
    assert reply.ok and reply.reminder is not None
    copy = await row_of(database, reply.reminder.id)
    assert copy.id != view.id
    assert copy.repeat is None and copy.content == "薬を飲む" and copy.channel_id == CHANNEL
    assert copy.due_at == datetime(2026, 11, 20, 4, 0, tzinfo=UTC)
    series = await row_of(database, view.id)
    assert series.occurrence == 2 and series.state == ReminderState.PENDING


async def test_snooze_into_the_past_is_refused_politely(
    buttons: ReminderButtons, service: ReminderService, database: Database
) -> None:
    view = await delivered(service, database)
    reply = await buttons.snooze(view.id, ALICE, datetime(2026, 11, 19, tzinfo=UTC), TOKYO)
    assert not reply.ok and "延ばせません" in reply.message


async def test_done_on_a_snoozed_reminder_cancels_the_snooze(
    buttons: ReminderButtons, service: ReminderService, database: Database
) -> None:
    view = await delivered(service, database)
    await buttons.snooze(view.id, ALICE, timedelta(minutes=10), TOKYO)
    reply = await buttons.done(view.id, ALICE, TOKYO)
    assert reply.ok and reply.message.startswith("✅ 完了にしました")
    assert (await row_of(database, view.id)).state == ReminderState.CANCELLED


async def test_done_on_a_repeat_says_when_it_comes_next(
    buttons: ReminderButtons, service: ReminderService, database: Database
) -> None:
    view = await delivered(service, database, RepeatRule(kind="daily"))
    reply = await buttons.done(view.id, ALICE, TOKYO)
    assert reply.ok
    assert reply.message == "✅ 完了にしました。次回は 11月21日(土) 12:00 です。"
    assert (await row_of(database, view.id)).state == ReminderState.PENDING


async def test_buttons_of_a_deleted_reminder_say_it_is_gone(buttons: ReminderButtons) -> None:
    reply = await buttons.done(404, ALICE, TOKYO)
    assert not reply.ok and "見つかりません" in reply.message
