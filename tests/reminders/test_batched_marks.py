"""Sends that finish together are recorded in one statement, and still exactly once: a row is
marked only after Discord accepted its message, each with its own message id, and a failure in
the middle of a batch touches only its own row."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from apscheduler.schedulers.asyncio import AsyncIOScheduler

from bot.reminders.delivery.claims import Claim, Posted
from bot.reminders.delivery.engine import DeliveryEngine
from bot.reminders.delivery.ledger import DeliveryLedger
from bot.reminders.service import ReminderService
from bot.reminders.table import Reminder, ReminderState
from bot.runtime.clock import ManualClock
from bot.runtime.pacing import SendPacer
from bot.runtime.send_failures import PermanentSendError, RetryableSendError
from bot.runtime.shards import ShardPlan
from bot.settings import Settings
from bot.storage.engine import Database
from tests.reminders.fakes import FailureInbox, FakeSender
from tests.reminders.support import ALICE, GUILD, TOKYO

DUE = datetime(2026, 11, 20, 1, 10, tzinfo=UTC)
# Message ids the size of real snowflakes (beyond 32 bits), as Discord hands them out.
FIRST_MESSAGE_ID = 1_310_000_000_000_000_000


class Batches:
    """Wraps a ledger's batched writes and records the rows of each call."""

    def __init__(self) -> None:
        self.confirms: list[list[int]] = []
        self.marks: list[list[int]] = []

    @classmethod
    def of(cls, engine: DeliveryEngine) -> Batches:
        """Batches watching engine's ledger from now on."""
        batches = cls()
        batches.watch(engine)
        return batches

    def watch(self, engine: DeliveryEngine) -> None:
        ledger = engine._ledger
        confirm_many, mark_delivered_many = ledger.confirm_many, ledger.mark_delivered_many

        async def confirms(claims: Sequence[Claim], now: datetime) -> list[bool]:
            self.confirms.append([c.row.id for c in claims])
            return await confirm_many(claims, now)

        async def marks(posted: Sequence[Posted]) -> list[bool]:
            self.marks.append([p.claim.row.id for p in posted])
            return await mark_delivered_many(posted)

        ledger.confirm_many = confirms  # type: ignore[method-assign]
        ledger.mark_delivered_many = marks  # type: ignore[method-assign]


@pytest.fixture
async def make_engine(
    database: Database, clock: ManualClock
) -> AsyncIterator[Callable[..., DeliveryEngine]]:
    scheduler = AsyncIOScheduler(timezone=UTC)
    scheduler.start(paused=True)
    engines: list[DeliveryEngine] = []

    def make(sender: FakeSender, **options: Any) -> DeliveryEngine:
        engine = DeliveryEngine(
            database.sessions,
            clock,
            scheduler,
            sender,
            FailureInbox(),
            # The manual clock does not move: pacing is covered on real time elsewhere.
            pacer=SendPacer(1_000_000, channel_messages=1_000_000),
            **options,
        )
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        await engine.stop()
    scheduler.shutdown(wait=False)


def held_sender(channels: Sequence[int]) -> FakeSender:
    """A sender whose posts in these channels wait until the test opens their gates."""
    sender = FakeSender(first_message_id=FIRST_MESSAGE_ID)
    for channel in channels:
        sender.gates[channel] = asyncio.Event()
    return sender


async def remind_in(database: Database, clock: ManualClock, channels: Sequence[int]) -> list[int]:
    service = ReminderService(database.sessions, clock, Settings())
    ids = []
    for channel in channels:
        view = await service.create(
            user_id=ALICE,
            user_display_name="alice",
            guild_id=GUILD,
            channel_id=channel,
            when="2026-11-20T10:10",
            content=f"in {channel}",
            tz=TOKYO,
        )
        ids.append(view.id)
    return ids


async def rows(database: Database, ids: Sequence[int]) -> list[Reminder]:
    async with database.sessions() as session:
        found = [await session.get(Reminder, reminder_id) for reminder_id in ids]
    assert all(row is not None for row in found)
    return found  # type: ignore[return-value]


async def sent(sender: FakeSender, count: int) -> None:
    """Wait until the sender was asked to post count messages."""
    async with asyncio.timeout(5):
        while True:
            sender.called.clear()
            if len(sender.calls) >= count:
                return
            await sender.called.wait()


def open_all(sender: FakeSender) -> None:
    for gate in sender.gates.values():
        gate.set()


async def test_nothing_is_marked_before_discord_accepted_it_then_the_batch_in_one_statement(
    database: Database, clock: ManualClock, make_engine: Callable[..., DeliveryEngine]
) -> None:
    channels = [501, 502, 503, 504, 505, 506]
    ids = await remind_in(database, clock, channels)
    sender = held_sender(channels)
    engine = make_engine(sender, worker_id="batching")
    batches = Batches.of(engine)
    clock.set(DUE)

    running = asyncio.create_task(engine.run_due())
    await sent(sender, len(ids))
    # Every send is in Discord's hands, none answered: every row is still only claimed.
    for row in await rows(database, ids):
        assert row.state == ReminderState.PENDING
        assert row.claimed_by is not None and row.delivered_message_id is None
    open_all(sender)
    await running

    assert sorted(id_ for batch in batches.marks for id_ in batch) == sorted(ids)
    assert max(len(batch) for batch in batches.marks) > 1
    assert max(len(batch) for batch in batches.confirms) > 1
    message_of = {d.reminder_id: FIRST_MESSAGE_ID + n for n, d in enumerate(sender.posted)}
    for row in await rows(database, ids):
        assert row.state == ReminderState.DELIVERED
        assert row.delivered_message_id == message_of[row.id]
        assert row.delivered_at == DUE
        assert row.claimed_by is None and row.lease_until is None


async def test_a_failed_send_in_the_middle_of_a_batch_leaves_only_its_own_row_unmarked(
    database: Database, clock: ManualClock, make_engine: Callable[..., DeliveryEngine]
) -> None:
    channels = [511, 512, 513, 514, 515]
    ids = await remind_in(database, clock, channels)
    refused, busy = ids[1], ids[3]
    sender = held_sender(channels)
    sender.failures[refused].append(PermanentSendError("403 Forbidden: Missing Access"))
    sender.failures[busy].append(RetryableSendError("503 Service Unavailable", retry_after=2))
    engine = make_engine(sender, worker_id="batching")
    batches = Batches.of(engine)
    clock.set(DUE)

    running = asyncio.create_task(engine.run_due())
    await sent(sender, len(ids))
    open_all(sender)
    await running

    accepted = [ids[0], ids[2], ids[4]]
    assert sorted(d.reminder_id for d in sender.posted) == accepted
    assert sorted(id_ for batch in batches.marks for id_ in batch) == accepted
    by_id = {row.id: row for row in await rows(database, ids)}
    for reminder_id in accepted:
        assert by_id[reminder_id].state == ReminderState.DELIVERED
        assert by_id[reminder_id].delivered_message_id is not None
    for reminder_id in (refused, busy):
        row = by_id[reminder_id]
        assert row.state == ReminderState.PENDING
        assert row.delivered_message_id is None and row.claimed_by is None
    assert (by_id[refused].attempts, by_id[refused].retries) == (1, 0)
    assert "Missing Access" in (by_id[refused].last_error or "")
    assert (by_id[busy].attempts, by_id[busy].retries) == (0, 1)
    assert (by_id[busy].next_attempt_at - DUE).total_seconds() == 2


async def test_a_reminder_cancelled_while_its_batch_waited_is_the_only_one_not_sent(
    database: Database, clock: ManualClock, make_engine: Callable[..., DeliveryEngine]
) -> None:
    channels = [521, 522, 523]
    # Two in each channel: the second ones wait behind the first in their channel's lane.
    first = await remind_in(database, clock, channels)
    second = await remind_in(database, clock, channels)
    sender = held_sender(channels)
    engine = make_engine(sender, worker_id="batching")
    batches = Batches.of(engine)
    clock.set(DUE)

    running = asyncio.create_task(engine.run_due())
    await sent(sender, len(channels))
    service = ReminderService(database.sessions, clock, Settings())
    await service.cancel(second[1], ALICE, TOKYO)
    open_all(sender)
    await running

    assert any(second[1] in batch and len(batch) > 1 for batch in batches.confirms)
    assert sorted(d.reminder_id for d in sender.posted) == sorted([*first, second[0], second[2]])
    states = {row.id: row.state for row in await rows(database, first + second)}
    assert states.pop(second[1]) == ReminderState.CANCELLED
    assert set(states.values()) == {ReminderState.DELIVERED}


async def test_a_crash_after_discord_accepted_a_batch_resends_it_once_with_the_same_nonces(
    database: Database, clock: ManualClock, make_engine: Callable[..., DeliveryEngine]
) -> None:
    channels = [531, 532, 533, 534]
    ids = await remind_in(database, clock, channels)
    sender = held_sender(channels)
    identity = ShardPlan().identity()
    crashing = make_engine(sender, worker_id="dies", identity=identity)

    async def killed(posted: Sequence[Posted]) -> list[bool]:
        raise RuntimeError("process killed before the batch was written")

    crashing._ledger.mark_delivered_many = killed  # type: ignore[method-assign]
    clock.set(DUE)
    running = asyncio.create_task(crashing.run_due())
    await sent(sender, len(ids))
    open_all(sender)
    await running
    await crashing.stop()
    assert len(sender.posted) == len(ids)
    for row in await rows(database, ids):
        assert row.state == ReminderState.PENDING and row.claimed_by is not None

    # The restarted process (same shards) takes the claims back at once and sends again.
    restarted = make_engine(sender, worker_id="again", identity=identity)
    await restarted.start()
    await restarted.drain()

    assert len(sender.calls) == 2 * len(ids)
    assert sender.posts_per_reminder() == {reminder_id: 1 for reminder_id in ids}
    first_message = {d.reminder_id: FIRST_MESSAGE_ID + n for n, d in enumerate(sender.posted)}
    for row in await rows(database, ids):
        assert row.state == ReminderState.DELIVERED
        assert row.delivered_message_id == first_message[row.id]


async def test_confirming_a_batch_renews_each_lease_and_skips_a_cancelled_row(
    database: Database, clock: ManualClock
) -> None:
    ids = await remind_in(database, clock, [541, 542])
    ledger = DeliveryLedger(database.sessions, worker_id="renews", lease=timedelta(seconds=60))
    claims = await ledger.claim_due(DUE, 10)
    service = ReminderService(database.sessions, clock, Settings())
    await service.cancel(ids[1], ALICE, TOKYO)

    later = DUE + timedelta(seconds=40)
    assert await ledger.confirm_many(claims, later) == [True, False]
    renewed, cancelled = await rows(database, ids)
    assert renewed.lease_until == later + timedelta(seconds=60)
    assert cancelled.state == ReminderState.CANCELLED
