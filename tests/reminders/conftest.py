"""Shared fixtures: a database with the reminders table, a manual clock and a tool context."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from bot.agent.tools import ToolContext
from bot.reminders.service import ReminderService
from bot.runtime.clock import ManualClock
from bot.settings import Settings
from bot.storage.engine import Database
from tests.reminders.support import (
    ALICE,
    CHANNEL,
    GUILD,
    START,
    TOKYO,
    ContextFactory,
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
