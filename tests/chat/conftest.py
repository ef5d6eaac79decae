"""Fixtures: a manual clock at noon in Tokyo and an in-memory database with the chat tables."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

import bot.chat.table  # noqa: F401 - registers the chat tables on Base.metadata
from bot.runtime.clock import ManualClock
from bot.settings import Settings
from bot.storage.engine import Database

# 12:00 in Tokyo on Saturday 2025-11-29.
NOW = datetime(2025, 11, 29, 3, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(NOW)


@pytest.fixture
def settings() -> Settings:
    return Settings(tips_channel_id=555, tips_quiet_hours="0-7")


@pytest.fixture
def db(database: Database) -> Database:
    """The chat tests' name for the shared `database` fixture (both engines)."""
    return database
