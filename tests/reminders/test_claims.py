"""Claims: a batch is never larger than asked, leases follow one clock, a restarted process takes
its predecessor's claims back, and each process claims only its shards' reminders."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, insert, select

from bot.reminders.delivery.ledger import DeliveryLedger
from bot.reminders.table import Reminder, ReminderState
from bot.runtime.clock import ManualClock
from bot.runtime.shards import ShardPlan
from bot.storage.engine import Database
from tests.reminders.support import ALICE, START

LEASE = timedelta(seconds=60)
DUE = START - timedelta(minutes=5)


def _rows(count: int, *, guild_id: int | None = 77) -> list[dict[str, Any]]:
    return [
        {
            "guild_id": guild_id,
            "channel_id": 500 + n % 7,
            "user_id": ALICE,
            "user_display_name": "alice",
            "content": f"用事 {n}",
            "due_at": DUE,
            "timezone": "Asia/Tokyo",
            "repeat": None,
            "occurrence": 1,
            "state": ReminderState.PENDING,
            "attempts": 0,
            "retries": 0,
            "next_attempt_at": DUE,
            "created_at": DUE,
        }
        for n in range(count)
    ]


async def _insert(database: Database, rows: list[dict[str, Any]]) -> None:
    async with database.sessions() as session, session.begin():
        await session.execute(insert(Reminder), rows)


async def _claimed(database: Database) -> int:
    async with database.sessions() as session:
        count = await session.scalar(
            select(func.count()).select_from(Reminder).where(Reminder.claimed_by.is_not(None))
        )
    return int(count or 0)


def _ledger(database: Database, **options: Any) -> DeliveryLedger:
    options.setdefault("worker_id", "worker-a")
    return DeliveryLedger(database.sessions, lease=LEASE, **options)


async def test_a_claim_takes_no_more_than_its_batch_right_after_a_bulk_insert(
    database: Database,
) -> None:
    # No ANALYZE after the insert: PostgreSQL plans with stale statistics, which once made
    # UPDATE … WHERE id IN (SELECT … LIMIT 5 FOR UPDATE SKIP LOCKED) take every due row.
    await _insert(database, _rows(300))

    claims = await _ledger(database).claim_due(START, 5)

    assert len(claims) == 5
    assert await _claimed(database) == 5
    assert [c.row.id for c in claims] == sorted(c.row.id for c in claims)


async def test_two_processes_take_disjoint_batches(database: Database) -> None:
    await _insert(database, _rows(12))

    first = await _ledger(database, worker_id="one").claim_due(START, 5)
    second = await _ledger(database, worker_id="two").claim_due(START, 5)

    assert {c.row.id for c in first}.isdisjoint(c.row.id for c in second)
    assert await _claimed(database) == 10


async def test_a_restarted_process_takes_back_its_predecessors_claims_at_once(
    database: Database,
) -> None:
    await _insert(database, _rows(3))
    identity = ShardPlan().identity()
    crashed = _ledger(database, identity=identity)
    assert len(await crashed.claim_due(START, 10)) == 3

    other = _ledger(database, identity="shards1of2")
    assert await other.take_back() == 0
    restarted = _ledger(database, identity=identity)
    assert await restarted.take_back() == 3
    retaken = await restarted.claim_due(START, 10)

    # The leases had 60 s to run; the restarted process did not wait for them.
    assert len(retaken) == 3
    assert all(c.token.startswith(restarted.worker_id) for c in retaken)
    assert await crashed.confirm(retaken[0].__class__(retaken[0].row, "old#1"), START) is False


async def test_a_retried_reminder_keeps_its_place_in_the_burst(database: Database) -> None:
    await _insert(database, _rows(5))
    ledger = _ledger(database)
    first, *_ = await ledger.claim_due(START, 1)
    # Discord said 429 (or the process died after a send): tried again a little later.
    assert await ledger.reschedule(
        first,
        next_attempt_at=START + timedelta(seconds=5),
        attempts=0,
        retries=1,
        last_error="429",
    )
    later = START + timedelta(seconds=5)

    again = await ledger.claim_due(later, 10)

    # Ahead of the four that fell due with it and waited: it is the oldest promise.
    assert [c.row.id for c in again] == sorted(c.row.id for c in again)
    assert again[0].row.id == first.row.id


async def test_leases_are_timed_by_the_databases_clock_not_each_process_clock(
    database: Database,
) -> None:
    await _insert(database, _rows(2))
    # Two processes whose clocks disagree by two minutes, more than a lease.
    behind = ManualClock(datetime.now(UTC))
    ahead = ManualClock(datetime.now(UTC) + timedelta(minutes=2))
    first = _ledger(database, worker_id="behind", database_time=True)
    second = _ledger(database, worker_id="ahead", database_time=True)

    assert len(await first.claim_due(behind.now(), 10)) == 2
    # By its own clock the first lease has run out; by the database's it has not.
    assert await second.claim_due(ahead.now(), 10) == []


async def test_each_process_claims_only_the_reminders_of_its_shards(database: Database) -> None:
    on_shard_0, on_shard_1 = 0 << 22, 1 << 22  # (guild_id >> 22) % 2
    await _insert(database, _rows(2, guild_id=on_shard_0))
    await _insert(database, _rows(3, guild_id=on_shard_1))
    await _insert(database, _rows(4, guild_id=None))  # DMs belong to shard 0

    second = await _ledger(database, shards=ShardPlan(2, (1,))).claim_due(START, 100)
    first = await _ledger(database, shards=ShardPlan(2, (0,))).claim_due(START, 100)

    assert {c.row.guild_id for c in second} == {on_shard_1} and len(second) == 3
    assert {c.row.guild_id for c in first} == {on_shard_0, None} and len(first) == 6
