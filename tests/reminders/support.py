"""Constants and helpers shared by the reminder tests."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import bot.storage.reminders  # noqa: F401 - registers the table on Base.metadata
from bot.agent.tools import ToolContext
from bot.storage.base import Base
from bot.storage.engine import Database, create_database

TOKYO = ZoneInfo("Asia/Tokyo")
# Friday 2026-11-20, 10:00 in Tokyo; the Monday after is a holiday (勤労感謝の日).
START = datetime(2026, 11, 20, 1, 0, tzinfo=UTC)
ALICE, BOB = 1001, 2002
GUILD, CHANNEL = 77, 500

ContextFactory = Callable[..., ToolContext]


async def open_database(url: str) -> Database:
    """A database with every table created."""
    database = create_database(url)
    async with database.engine.begin() as connection:
        await connection.run_sync(Base.metadata.create_all)
    return database
