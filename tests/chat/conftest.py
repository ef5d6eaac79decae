"""Fixtures: a manual clock at noon in Tokyo and an in-memory database with the chat tables."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

import bot.storage.chat  # noqa: F401 - registers the chat tables on Base.metadata
from bot.clock import ManualClock
from bot.settings import Settings
from bot.storage.base import Base
from bot.storage.engine import Database, create_database

# 12:00 in Tokyo on Saturday 2025-11-29.
NOW = datetime(2025, 11, 29, 3, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(NOW)


@pytest.fixture
def settings() -> Settings:
    return Settings(tips_channel_id=555, tips_quiet_hours="0-7")


async def open_database(url: str) -> Database:
    """A database at url with the chat tables created."""
    database = create_database(url)
    async with database.engine.begin() as connection:
        await connection.run_sync(Base.metadata.create_all)
    return database


@pytest.fixture
async def db() -> AsyncIterator[Database]:
    database = await open_database("sqlite+aiosqlite://")
    yield database
    await database.dispose()
