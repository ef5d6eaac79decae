"""Shared fixtures: a database with the reminders table, a manual clock and a tool context."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from apscheduler.schedulers.asyncio import AsyncIOScheduler

from bot.agent.tools import ToolContext
from bot.reminders.delivery.engine import DeliveryEngine
from bot.reminders.recipients import Recipients
from bot.reminders.service import ReminderService
from bot.runtime.clock import ManualClock
from bot.settings import Settings
from bot.storage.engine import Database
from tests.reminders.fakes import FailureInbox, FakeSender
from tests.reminders.support import (
    ALICE,
    CHANNEL,
    GUILD,
    START,
    TOKYO,
    ContextFactory,
    EngineFactory,
    unpaced,
)


@pytest.fixture
def file_database(database: Database) -> Database:
    """A database that concurrent sessions can share (every `database` is file-backed now)."""
    return database


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def settings() -> Settings:
    return Settings()


@pytest.fixture
def service(database: Database, clock: ManualClock, settings: Settings) -> ReminderService:
    return ReminderService(database.sessions, clock, settings)


@dataclass(frozen=True)
class ReminderToolDeps:
    """The part of the bot's dependencies the reminder tools use."""

    reminders: ReminderService
    reminder_recipients: Recipients = field(default_factory=Recipients)


@pytest.fixture
def make_ctx(database: Database, clock: ManualClock, settings: Settings) -> ContextFactory:
    """A ToolContext for a user (Alice by default) in the test channel; its reminder service
    reports new due times to on_change."""

    def make(
        user_id: int = ALICE,
        *,
        name: str = "alice",
        tz: ZoneInfo = TOKYO,
        settings_: Settings | None = None,
        channel_id: int = CHANNEL,
        on_change: Callable[[datetime], None] | None = None,
    ) -> ToolContext[ReminderToolDeps]:
        chosen = settings_ or settings
        service = ReminderService(database.sessions, clock, chosen, on_change=on_change)
        return ToolContext(
            user_id=user_id,
            user_name=name,
            guild_id=GUILD,
            channel_id=channel_id,
            clock=clock,
            sessions=database.sessions,
            settings=chosen,
            timezone=tz,
            deps=ReminderToolDeps(service),
            origin_message_id=9999,
        )

    return make


@pytest.fixture
async def scheduler() -> AsyncIterator[AsyncIOScheduler]:
    """A running but paused scheduler: jobs are armed and inspectable, never fired."""
    sched = AsyncIOScheduler(timezone=UTC)
    sched.start(paused=True)
    yield sched
    sched.shutdown(wait=False)


@pytest.fixture
def sender() -> FakeSender:
    return FakeSender()


@pytest.fixture
def inbox() -> FailureInbox:
    return FailureInbox()


@pytest.fixture
async def make_engine(
    file_database: Database,
    clock: ManualClock,
    scheduler: AsyncIOScheduler,
    sender: FakeSender,
    inbox: FailureInbox,
) -> AsyncIterator[EngineFactory]:
    """Delivery engines on the test's clock, sender and paused scheduler, stopped after."""
    engines: list[DeliveryEngine] = []

    def make(database: Database = file_database, **options: object) -> DeliveryEngine:
        options.setdefault("clock", clock)
        options.setdefault("scheduler", scheduler)
        # Pacing runs on real time; tests/reminders/test_pacing.py covers it on its own.
        options.setdefault("pacer", unpaced())
        engine = DeliveryEngine(
            database.sessions,
            sender=sender,
            notify_owner_failure=inbox,
            **options,  # type: ignore[arg-type]
        )
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        await engine.stop()


@pytest.fixture
def engine(make_engine: EngineFactory) -> DeliveryEngine:
    return make_engine(worker_id="engine-a")
