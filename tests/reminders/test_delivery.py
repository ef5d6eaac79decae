"""The delivery engine: on time, once, per-channel lanes, failures kept in the row."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from sqlalchemy import select

from bot.reminders.delivery.claims import Posted
from bot.reminders.delivery.engine import LEASE, DeliveryEngine
from bot.reminders.delivery.scope import CONSOLE_CHANNEL_ID, CONSOLE_REMINDERS, DISCORD_REMINDERS
from bot.reminders.service import ReminderService
from bot.reminders.table import Reminder, ReminderState
from bot.runtime.clock import Clock, ManualClock, SystemClock
from bot.runtime.pacing import SendPacer
from bot.runtime.send_failures import PermanentSendError, RetryableSendError
from bot.schedule.repeat import RepeatRule
from bot.settings import Settings
from bot.storage.engine import Database, create_database
from tests.reminders.fakes import FailureInbox, FakeSender
from tests.reminders.support import ALICE, CHANNEL, GUILD, TOKYO, EngineFactory


def service_for(
    database: Database, clock: Clock, engine: DeliveryEngine | None = None
) -> ReminderService:
    on_change = None if engine is None else engine.notify_changed
    return ReminderService(database.sessions, clock, Settings(), on_change=on_change)


async def remind(
    service: ReminderService,
    when: str = "2026-11-20T10:10",
    *,
    channel_id: int = CHANNEL,
    repeat: RepeatRule | None = None,
) -> int:
    view = await service.create(
        user_id=ALICE,
        user_display_name="alice",
        guild_id=GUILD,
        channel_id=channel_id,
        when=when,
        content="歯医者",
        tz=TOKYO,
        repeat=repeat,
        origin_message_id=9999,
    )
    return view.id


async def row_of(database: Database, reminder_id: int) -> Reminder:
    async with database.sessions() as session:
        row = await session.get(Reminder, reminder_id)
    assert row is not None
    return row


async def test_reminder_is_posted_once_at_its_due_time_with_its_nonce(
    engine: DeliveryEngine, file_database: Database, clock: ManualClock, sender: FakeSender
) -> None:
    reminder_id = await remind(service_for(file_database, clock))
    assert await engine.run_due() == 0
    clock.set(datetime(2026, 11, 20, 1, 10, tzinfo=UTC))
    assert await engine.run_due() == 1
    assert await engine.run_due() == 0

    (delivery,) = sender.posted
    assert delivery.nonce == f"r{reminder_id}o1"
    assert delivery.late_by is None
    assert (delivery.user_id, delivery.channel_id, delivery.content) == (ALICE, CHANNEL, "歯医者")
    assert delivery.due_text == "11月20日(金) 10:10"
    assert delivery.origin_url == f"https://discord.com/channels/{GUILD}/{CHANNEL}/9999"
    row = await row_of(file_database, reminder_id)
    assert row.state == ReminderState.DELIVERED
    assert row.delivered_message_id == 800_000
    assert row.delivered_at == clock.now()
    assert row.lease_until is None and row.claimed_by is None


async def test_repeat_advances_to_its_next_occurrence_in_the_same_row(
    engine: DeliveryEngine, file_database: Database, clock: ManualClock, sender: FakeSender
) -> None:
    reminder_id = await remind(
        service_for(file_database, clock), "2026-11-20T22:00", repeat=RepeatRule(kind="daily")
    )
    clock.set(datetime(2026, 11, 20, 13, 0, tzinfo=UTC))
    await engine.run_due()
    row = await row_of(file_database, reminder_id)
    assert (row.state, row.occurrence) == (ReminderState.PENDING, 2)
    assert row.due_at == row.next_attempt_at == datetime(2026, 11, 21, 13, 0, tzinfo=UTC)

    clock.set(row.due_at)
    await engine.run_due()
    assert [d.nonce for d in sender.posted] == [f"r{reminder_id}o1", f"r{reminder_id}o2"]
    assert sender.posted[1].repeat_text == "毎日 22:00"


async def test_retryable_error_is_retried_without_counting_an_attempt(
    engine: DeliveryEngine, file_database: Database, clock: ManualClock, sender: FakeSender
) -> None:
    reminder_id = await remind(service_for(file_database, clock))
    sender.failures[reminder_id].append(RetryableSendError("429", retry_after=3.0))
    clock.set(datetime(2026, 11, 20, 1, 10, tzinfo=UTC))
    await engine.run_due()

    row = await row_of(file_database, reminder_id)
    assert (row.state, row.attempts, row.retries, row.last_error) == (
        ReminderState.PENDING,
        0,
        1,
        "429",
    )
    assert row.next_attempt_at == clock.now() + timedelta(seconds=3)
    assert await engine.run_due() == 0
    clock.advance(timedelta(seconds=3))
    await engine.run_due()
    assert len(sender.posted) == 1
    assert (await row_of(file_database, reminder_id)).state == ReminderState.DELIVERED


async def test_endless_transient_errors_eventually_count_as_an_attempt(
    engine: DeliveryEngine, file_database: Database, clock: ManualClock, sender: FakeSender
) -> None:
    reminder_id = await remind(service_for(file_database, clock))
    sender.failures[reminder_id].extend(RetryableSendError(retry_after=1.0) for _ in range(21))
    clock.set(datetime(2026, 11, 20, 1, 10, tzinfo=UTC))
    for _ in range(21):
        await engine.run_due()
        clock.set((await row_of(file_database, reminder_id)).next_attempt_at)
    row = await row_of(file_database, reminder_id)
    assert (row.attempts, row.retries, row.state) == (1, 0, ReminderState.PENDING)
    assert row.last_error is not None and row.last_error.startswith("Discord kept failing")


async def test_rejections_are_kept_in_the_row_and_fail_after_five_with_the_owner_told(
    engine: DeliveryEngine,
    file_database: Database,
    clock: ManualClock,
    sender: FakeSender,
    inbox: FailureInbox,
) -> None:
    reminder_id = await remind(service_for(file_database, clock))
    sender.failures[reminder_id].extend(PermanentSendError("Missing Access") for _ in range(6))
    clock.set(datetime(2026, 11, 20, 1, 10, tzinfo=UTC))
    for attempt in range(1, 6):
        await engine.run_due()
        row = await row_of(file_database, reminder_id)
        assert (row.attempts, row.last_error) == (attempt, "Missing Access")
        if attempt < 5:
            assert row.state == ReminderState.PENDING
            assert row.next_attempt_at == clock.now() + timedelta(seconds=30 * 2 ** (attempt - 1))
            assert inbox.notices == []
            clock.set(row.next_attempt_at)
    assert row.state == ReminderState.FAILED
    ((delivery, reason),) = inbox.notices
    assert (delivery.reminder_id, reason) == (reminder_id, "Missing Access")
    clock.advance(timedelta(days=1))
    assert await engine.run_due() == 0
    assert len(sender.calls) == 5


async def test_overdue_reminders_are_posted_at_start_flagged_late(
    engine: DeliveryEngine, file_database: Database, clock: ManualClock, sender: FakeSender
) -> None:
    await remind(service_for(file_database, clock))
    clock.set(datetime(2026, 11, 20, 3, 0, tzinfo=UTC))
    await engine.start()
    await engine.drain()
    (delivery,) = sender.posted
    assert delivery.late_by == timedelta(hours=1, minutes=50)
    assert delivery.late_text == "1時間50分遅れ"


class SteppingTime:
    """Monotonic time that moves only when the pacer sleeps, recording each sleep."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


async def test_a_restarted_engine_counts_its_predecessors_last_posts_against_the_channel(
    make_engine: EngineFactory, file_database: Database, clock: ManualClock, sender: FakeSender
) -> None:
    service = service_for(file_database, clock)
    ids = [await remind(service) for _ in range(6)]
    elsewhere = await remind(service, channel_id=CHANNEL + 1)
    clock.set(datetime(2026, 11, 20, 1, 10, tzinfo=UTC))
    # The first process posts five in CHANNEL (Discord's limit for 5 s) and stops.
    assert await make_engine(worker_id="before", max_in_flight=5).run_due() == 5
    clock.advance(timedelta(seconds=1))
    time = SteppingTime()
    restarted = make_engine(
        worker_id="after", pacer=SendPacer(50, monotonic=time.monotonic, sleep=time.sleep)
    )
    await restarted.start()
    await restarted.drain()

    assert sender.posts_per_reminder() == {reminder_id: 1 for reminder_id in [*ids, elsewhere]}
    # The sixth waited out CHANNEL's window: 5 s after the posts made 1 s before the restart.
    assert time.slept == [pytest.approx(4.02)]


async def test_a_crash_between_send_and_mark_resends_with_the_same_nonce(
    make_engine: EngineFactory,
    file_database: Database,
    clock: ManualClock,
    sender: FakeSender,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reminder_id = await remind(service_for(file_database, clock))
    crashing = make_engine(worker_id="dies")

    async def die(*_: object) -> bool:
        raise RuntimeError("process killed before marking")

    monkeypatch.setattr(crashing._ledger, "mark_delivered_many", die)
    clock.set(datetime(2026, 11, 20, 1, 10, tzinfo=UTC))
    await crashing.run_due()
    row = await row_of(file_database, reminder_id)
    assert row.state == ReminderState.PENDING and row.claimed_by is not None

    survivor = make_engine(worker_id="survives")
    assert await survivor.run_due() == 0  # the lease still holds
    clock.advance(LEASE)
    assert await survivor.run_due() == 1

    assert [d.nonce for d in sender.calls] == [f"r{reminder_id}o1"] * 2
    assert len(sender.posted) == 1  # Discord dropped the resend by its nonce
    row = await row_of(file_database, reminder_id)
    assert row.state == ReminderState.DELIVERED
    assert row.delivered_message_id == 800_000


async def test_two_engines_on_one_database_post_each_reminder_exactly_once(
    make_engine: EngineFactory,
    file_database: Database,
    database_url: str,
    clock: ManualClock,
    sender: FakeSender,
) -> None:
    service = service_for(file_database, clock)
    ids = [await remind(service, channel_id=600 + i % 4) for i in range(40)]
    second_process = create_database(database_url)
    try:
        first = make_engine(worker_id="one", batch_size=5)
        second = make_engine(second_process, worker_id="two", batch_size=5)
        clock.set(datetime(2026, 11, 20, 1, 10, tzinfo=UTC))
        claimed = await asyncio.gather(first.run_due(), second.run_due())
    finally:
        await second_process.dispose()

    assert sum(claimed) == 40
    assert sender.posts_per_reminder() == {reminder_id: 1 for reminder_id in ids}
    assert len(sender.calls) == 40
    async with file_database.sessions() as session:
        states = set(await session.scalars(select(Reminder.state)))
    assert states == {ReminderState.DELIVERED}


async def test_a_slow_channel_does_not_delay_another_channels_reminder(
    engine: DeliveryEngine, file_database: Database, clock: ManualClock, sender: FakeSender
) -> None:
    service = service_for(file_database, clock)
    slow = await remind(service, channel_id=1)
    fast = await remind(service, channel_id=2)
    sender.gates[1] = asyncio.Event()
    clock.set(datetime(2026, 11, 20, 1, 10, tzinfo=UTC))

    running = asyncio.create_task(engine.run_due())
    async with asyncio.timeout(5):
        await sender.posted_events[fast].wait()
    assert [d.reminder_id for d in sender.posted] == [fast]

    sender.gates[1].set()
    await running
    assert [d.reminder_id for d in sender.posted] == [fast, slow]


async def test_a_reminder_cancelled_while_queued_is_not_posted(
    engine: DeliveryEngine, file_database: Database, clock: ManualClock, sender: FakeSender
) -> None:
    service = service_for(file_database, clock)
    first = await remind(service, channel_id=1)
    second = await remind(service, channel_id=1)
    sender.gates[1] = asyncio.Event()
    clock.set(datetime(2026, 11, 20, 1, 10, tzinfo=UTC))

    running = asyncio.create_task(engine.run_due())
    async with asyncio.timeout(5):
        await sender.called.wait()
    await service.cancel(second, ALICE, TOKYO)
    sender.gates[1].set()
    await running
    assert [d.reminder_id for d in sender.posted] == [first]
    assert (await row_of(file_database, second)).state == ReminderState.CANCELLED


async def test_wake_up_job_is_armed_at_the_earliest_due_time_in_the_table(
    engine: DeliveryEngine,
    file_database: Database,
    clock: ManualClock,
    scheduler: AsyncIOScheduler,
) -> None:
    service = service_for(file_database, clock)
    await remind(service, "2026-11-21T09:00")
    await remind(service, "2026-11-20T18:30")
    await engine.start()
    job = scheduler.get_job(engine.job_id)
    assert job is not None
    assert job.next_run_time == datetime(2026, 11, 20, 9, 30, tzinfo=UTC)
    assert job.misfire_grace_time is None and job.coalesce


async def test_wake_up_is_rearmed_when_an_earlier_reminder_is_created(
    engine: DeliveryEngine,
    file_database: Database,
    clock: ManualClock,
    scheduler: AsyncIOScheduler,
    sender: FakeSender,
) -> None:
    await engine.start()
    assert scheduler.get_job(engine.job_id) is None
    service = service_for(file_database, clock, engine)

    def armed() -> datetime:
        job = scheduler.get_job(engine.job_id)
        assert job is not None
        return job.next_run_time  # type: ignore[no-any-return]

    await remind(service, "2026-11-20T12:00")
    assert armed() == datetime(2026, 11, 20, 3, 0, tzinfo=UTC)
    early = await remind(service, "2026-11-20T10:30")
    assert armed() == datetime(2026, 11, 20, 1, 30, tzinfo=UTC)
    await remind(service, "2026-11-20T15:00")
    assert armed() == datetime(2026, 11, 20, 1, 30, tzinfo=UTC)

    # What the scheduler does when the job fires: deliver, then re-arm from the table.
    clock.set(datetime(2026, 11, 20, 1, 30, tzinfo=UTC))
    await scheduler.get_job(engine.job_id).func()
    await engine.drain()
    assert [d.reminder_id for d in sender.posted] == [early]
    assert armed() == datetime(2026, 11, 20, 3, 0, tzinfo=UTC)


async def test_the_running_scheduler_fires_the_wake_up_and_posts(
    make_engine: EngineFactory, file_database: Database, sender: FakeSender
) -> None:
    live = AsyncIOScheduler(timezone=UTC)
    live.start()
    try:
        engine = make_engine(clock=SystemClock(), scheduler=live)
        now = SystemClock().now()
        async with file_database.sessions() as session, session.begin():
            session.add(
                Reminder(
                    channel_id=CHANNEL,
                    user_id=ALICE,
                    user_display_name="alice",
                    content="now",
                    due_at=now + timedelta(milliseconds=200),
                    timezone="Asia/Tokyo",
                    occurrence=1,
                    state=ReminderState.PENDING,
                    attempts=0,
                    retries=0,
                    next_attempt_at=now + timedelta(milliseconds=200),
                    created_at=now,
                )
            )
        await engine.start()
        assert sender.posted == []
        async with asyncio.timeout(10):
            await sender.posted_events[1].wait()
    finally:
        live.shutdown(wait=False)
    assert sender.posted[0].content == "now"


async def test_a_backlog_beyond_the_in_flight_cap_is_delivered_in_turns(
    make_engine: EngineFactory,
    file_database: Database,
    clock: ManualClock,
    scheduler: AsyncIOScheduler,
    sender: FakeSender,
) -> None:
    service = service_for(file_database, clock)
    ids = [await remind(service, channel_id=700 + i % 3) for i in range(10)]
    engine = make_engine(worker_id="capped", max_in_flight=4)
    clock.set(datetime(2026, 11, 20, 1, 10, tzinfo=UTC))
    await engine.start()
    await engine.drain()
    assert len(sender.posted) == 4
    # Each time the lanes drain they re-arm the wake-up for now; fire it as the scheduler would.
    for _ in range(5):
        job = scheduler.get_job(engine.job_id)
        if job is None or job.next_run_time > clock.now():
            break
        await job.func()
        await engine.drain()
    assert sorted(sender.posts_per_reminder()) == ids
    assert scheduler.get_job(engine.job_id) is None  # nothing left to wake for


async def test_the_bot_leaves_console_reminders_to_the_console_and_the_console_the_bots(
    make_engine: EngineFactory, file_database: Database, clock: ManualClock, sender: FakeSender
) -> None:
    service = service_for(file_database, clock)
    discord_id = await remind(service)
    console_id = await remind(service, channel_id=CONSOLE_CHANNEL_ID)
    bot = make_engine(worker_id="bot", scope=DISCORD_REMINDERS)
    console = make_engine(worker_id="console", scope=CONSOLE_REMINDERS)
    clock.set(datetime(2026, 11, 20, 1, 10, tzinfo=UTC))

    assert await bot.run_due() == 1
    assert [d.reminder_id for d in sender.posted] == [discord_id]
    assert await console.run_due() == 1
    assert [d.reminder_id for d in sender.posted] == [discord_id, console_id]


async def test_a_reminder_whose_mark_failed_is_delivered_once_its_lease_ends(
    engine: DeliveryEngine,
    file_database: Database,
    clock: ManualClock,
    scheduler: AsyncIOScheduler,
    sender: FakeSender,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Posted, then the mark failed: the row keeps this engine's lease, and a later re-arm
    (every wake and resync does one) still wakes at its end."""
    reminder_id = await remind(service_for(file_database, clock))
    mark = engine._ledger.mark_delivered_many

    async def broken(*_: object) -> list[bool]:
        raise RuntimeError("the mark failed")

    monkeypatch.setattr(engine._ledger, "mark_delivered_many", broken)
    clock.set(datetime(2026, 11, 20, 1, 10, tzinfo=UTC))
    await engine.start()
    await engine.drain()
    monkeypatch.setattr(engine._ledger, "mark_delivered_many", mark)
    assert (await row_of(file_database, reminder_id)).state == ReminderState.PENDING

    await engine.rearm()
    job = scheduler.get_job(engine.job_id)
    assert job is not None and job.next_run_time == clock.now() + LEASE

    clock.advance(LEASE)
    await job.func()
    await engine.drain()
    assert [d.nonce for d in sender.calls] == [f"r{reminder_id}o1"] * 2
    assert len(sender.posted) == 1
    assert (await row_of(file_database, reminder_id)).state == ReminderState.DELIVERED


async def test_a_mark_the_database_could_not_take_is_written_once_it_is_back(
    engine: DeliveryEngine,
    file_database: Database,
    clock: ManualClock,
    sender: FakeSender,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Posted, then the database went away: the mark waits for it, and nothing is resent."""
    reminder_id = await remind(service_for(file_database, clock))
    mark = engine._ledger.mark_delivered_many
    outage = 2

    async def away_then_back(posted: Sequence[Posted]) -> list[bool]:
        nonlocal outage
        if outage:
            outage -= 1
            raise ConnectionError("the database went away")
        return await mark(posted)

    monkeypatch.setattr(engine._ledger, "mark_delivered_many", away_then_back)
    monkeypatch.setattr(engine._health, "retry_delay", lambda: 0.0)
    clock.set(datetime(2026, 11, 20, 1, 10, tzinfo=UTC))
    await engine.start()
    await engine.drain()

    assert outage == 0
    assert [d.nonce for d in sender.calls] == [f"r{reminder_id}o1"]
    row = await row_of(file_database, reminder_id)
    assert row.state == ReminderState.DELIVERED and row.claimed_by is None
    assert not engine._health.down
