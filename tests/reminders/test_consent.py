"""Reminders for someone else: the member is asked first, the reminder reaches them only once
they accept, never after they decline or block the asker, and an unanswered request expires
at its time with word to the asker. A reminder to a channel needs the asker's Send Messages."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.reminders.consent import ACCEPT, BLOCK, DECLINE, ConsentButtons, ReminderConsent
from bot.reminders.delivery.engine import DeliveryEngine
from bot.reminders.delivery.sender import ASK, EXPIRE, REMIND
from bot.reminders.errors import (
    InvalidReminder,
    NotReminderOwner,
    ReminderClosed,
    ReminderRefused,
)
from bot.reminders.recipients import Channel, Member, Recipients, Target
from bot.reminders.service import ReminderService
from bot.reminders.table import Consent, Reminder, ReminderState
from bot.runtime.clock import ManualClock
from bot.settings import Settings
from bot.storage.engine import Database
from tests.reminders.fakes import FakeSender
from tests.reminders.support import ALICE, BOB, CHANNEL, GUILD, TOKYO

CAROL = 3003
OTHER_GUILD = 88
OTHER_CHANNEL = 600
# 2026-11-20 10:10 in Tokyo.
DUE = datetime(2026, 11, 20, 1, 10, tzinfo=UTC)


def hana(user_id: int = BOB) -> Target:
    return Target(member=Member(user_id, "hana"))


async def remind(
    service: ReminderService,
    target: Target,
    *,
    asker: int = ALICE,
    guild: int = GUILD,
    what: str = "資料送って",
) -> int:
    view = await service.create(
        user_id=asker,
        user_display_name="alice",
        guild_id=guild,
        channel_id=CHANNEL,
        when="2026-11-20T10:10",
        content=what,
        tz=TOKYO,
        origin_message_id=9999,
        target=target,
    )
    return view.id


async def row_of(database: Database, reminder_id: int) -> Reminder:
    async with database.sessions() as session:
        row = await session.get(Reminder, reminder_id)
    assert row is not None
    return row


@pytest.fixture
def reminders(
    file_database: Database, clock: ManualClock, engine: DeliveryEngine
) -> ReminderService:
    return ReminderService(
        file_database.sessions, clock, Settings(), on_change=engine.notify_changed
    )


@pytest.fixture
def consent(file_database: Database, clock: ManualClock) -> ReminderConsent:
    return ReminderConsent(file_database.sessions, clock)


async def test_the_member_is_asked_at_once_and_reminded_only_after_accepting(
    reminders: ReminderService,
    consent: ReminderConsent,
    engine: DeliveryEngine,
    file_database: Database,
    clock: ManualClock,
    sender: FakeSender,
) -> None:
    reminder_id = await remind(reminders, hana())

    assert await engine.run_due() == 1
    (request,) = sender.posted
    assert (request.step, request.nonce) == (ASK, f"r{reminder_id}a")
    assert (request.recipient_id, request.asker_id, request.channel_id) == (BOB, ALICE, CHANNEL)
    assert (await row_of(file_database, reminder_id)).consent == Consent.ASKED

    await consent.accept(reminder_id, BOB)
    clock.set(DUE)
    assert await engine.run_due() == 1

    reminder = sender.posted[-1]
    assert (reminder.step, reminder.recipient_id, reminder.content) == (REMIND, BOB, "資料送って")
    assert (await row_of(file_database, reminder_id)).state == ReminderState.DELIVERED


async def test_a_declined_reminder_is_never_delivered(
    reminders: ReminderService,
    consent: ReminderConsent,
    engine: DeliveryEngine,
    file_database: Database,
    clock: ManualClock,
    sender: FakeSender,
) -> None:
    reminder_id = await remind(reminders, hana())
    await engine.run_due()

    await consent.decline(reminder_id, BOB)
    clock.set(DUE + timedelta(hours=1))
    await engine.run_due()

    assert [d.step for d in sender.posted] == [ASK]
    row = await row_of(file_database, reminder_id)
    assert (row.state, row.consent) == (ReminderState.CANCELLED, Consent.DECLINED)
    with pytest.raises(ReminderClosed):
        await consent.accept(reminder_id, BOB)


async def test_an_unanswered_request_expires_at_its_time_and_the_asker_is_told(
    reminders: ReminderService,
    consent: ReminderConsent,
    engine: DeliveryEngine,
    file_database: Database,
    clock: ManualClock,
    sender: FakeSender,
) -> None:
    reminder_id = await remind(reminders, hana())
    await engine.run_due()

    clock.set(DUE)
    await engine.run_due()
    await engine.run_due()

    assert [d.step for d in sender.posted] == [ASK, EXPIRE]
    told = sender.posted[-1]
    assert (told.nonce, told.asker_id, told.recipient_id) == (f"r{reminder_id}x", ALICE, BOB)
    row = await row_of(file_database, reminder_id)
    assert (row.state, row.consent) == (ReminderState.CANCELLED, Consent.EXPIRED)
    with pytest.raises(ReminderClosed):
        await consent.accept(reminder_id, BOB)


async def test_only_the_member_it_is_for_may_answer_in_either_language(
    reminders: ReminderService, consent: ReminderConsent, engine: DeliveryEngine
) -> None:
    reminder_id = await remind(reminders, hana())
    await engine.run_due()
    buttons = ConsentButtons(consent)

    with pytest.raises(NotReminderOwner):
        await consent.accept(reminder_id, ALICE)
    japanese = await buttons.click(reminder_id, CAROL, ACCEPT, "ja")
    english = await buttons.click(reminder_id, ALICE, DECLINE, "en")
    accepted = await buttons.click(reminder_id, BOB, ACCEPT, "en")
    again = await buttons.click(reminder_id, BOB, DECLINE, "ja")

    assert (
        not japanese.ok and japanese.message == "このリマインドの依頼はあなた宛てではありません。"
    )
    assert not english.ok and english.message == "This reminder request is not for you."
    assert accepted.ok and accepted.message.startswith("✅ Accepted.")
    assert not again.ok and "もう答えが出ている" in again.message


async def test_stopping_all_from_a_person_declines_theirs_and_refuses_new_ones_in_that_server(
    reminders: ReminderService,
    consent: ReminderConsent,
    engine: DeliveryEngine,
    file_database: Database,
    clock: ManualClock,
    sender: FakeSender,
) -> None:
    first = await remind(reminders, hana(), what="資料")
    second = await remind(reminders, hana(), what="会議")
    from_carol = await remind(reminders, hana(), asker=CAROL, what="ランチ")
    await engine.run_due()

    reply = await ConsentButtons(consent).click(first, BOB, BLOCK, "ja")

    assert reply.ok and "2件" in reply.message
    for reminder_id in (first, second):
        row = await row_of(file_database, reminder_id)
        assert (row.state, row.consent) == (ReminderState.CANCELLED, Consent.DECLINED)
    assert (await row_of(file_database, from_carol)).state == ReminderState.PENDING
    with pytest.raises(ReminderRefused):
        await remind(reminders, hana(), what="また")
    with pytest.raises(ReminderRefused):
        await reminders.check_target(GUILD, hana(), ALICE)
    # Another server's block list is its own.
    await remind(reminders, hana(), guild=OTHER_GUILD)
    assert await consent.blocked(GUILD, BOB) == [ALICE]
    assert await consent.unblock(GUILD, BOB, ALICE)
    await remind(reminders, hana(), what="解除後")
    clock.set(DUE)
    await engine.run_due()
    assert not [d for d in sender.posted if d.step == REMIND]


async def test_the_member_may_snooze_a_reminder_they_accepted(
    reminders: ReminderService,
    consent: ReminderConsent,
    engine: DeliveryEngine,
    clock: ManualClock,
) -> None:
    reminder_id = await remind(reminders, hana())
    await engine.run_due()
    await consent.accept(reminder_id, BOB)
    clock.set(DUE)
    await engine.run_due()

    view = await reminders.snooze(reminder_id, BOB, DUE + timedelta(hours=1), TOKYO)

    assert view.due_at == DUE + timedelta(hours=1)
    with pytest.raises(NotReminderOwner):
        await reminders.cancel(reminder_id, BOB, TOKYO)


class Finder:
    """A server with members hana (BOB) and a bot, and #general where only some may post."""

    def __init__(self, posters: set[int]) -> None:
        self.posters = posters

    async def member(self, guild_id: int, text: str) -> Member | None:
        name = text.lstrip("@")
        return {"hana": Member(BOB, "hana"), "otomo": Member(9, "Otomo", bot=True)}.get(name)

    async def channel(self, guild_id: int, user_id: int, text: str) -> Channel | None:
        if text.lstrip("#") != "general":
            return None
        return Channel(OTHER_CHANNEL, asker_may_post=user_id in self.posters)


async def test_a_channel_reminder_needs_the_askers_send_messages_there() -> None:
    recipients = Recipients()
    recipients.attach(Finder(posters={ALICE}))

    allowed = await recipients.target({"to_channel": "#general"}, GUILD, ALICE)
    with pytest.raises(InvalidReminder, match="may not send messages"):
        await recipients.target({"to_channel": "#general"}, GUILD, CAROL)
    with pytest.raises(InvalidReminder, match="no channel"):
        await recipients.target({"to_channel": "#nowhere"}, GUILD, ALICE)

    assert allowed.channel == Channel(OTHER_CHANNEL, True)


async def test_a_member_target_is_found_and_a_bot_or_a_dm_is_refused() -> None:
    recipients = Recipients()
    recipients.attach(Finder(posters=set()))

    assert (await recipients.target({"for_member": "@hana"}, GUILD, ALICE)).member == Member(
        BOB, "hana"
    )
    assert await recipients.target({"for_member": "@hana"}, GUILD, BOB) == Target()
    with pytest.raises(InvalidReminder, match="bots"):
        await recipients.target({"for_member": "@otomo"}, GUILD, ALICE)
    with pytest.raises(InvalidReminder, match="no member"):
        await recipients.target({"for_member": "@nobody"}, GUILD, ALICE)
    with pytest.raises(InvalidReminder, match="in a server only"):
        await recipients.target({"for_member": "@hana"}, None, ALICE)
    with pytest.raises(InvalidReminder, match="not both"):
        await recipients.target({"for_member": "@hana", "to_channel": "#general"}, GUILD, ALICE)


async def test_a_channel_reminder_is_posted_there_without_a_ping(
    reminders: ReminderService, engine: DeliveryEngine, clock: ManualClock, sender: FakeSender
) -> None:
    await remind(reminders, Target(channel=Channel(OTHER_CHANNEL, True)))
    clock.set(DUE)
    await engine.run_due()

    (posted,) = sender.posted
    assert (posted.step, posted.channel_id, posted.to_channel) == (REMIND, OTHER_CHANNEL, True)
    assert posted.origin_url is None
