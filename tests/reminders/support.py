"""Constants and helpers shared by the reminder tests."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import bot.reminders.table  # noqa: F401 - registers the table on Base.metadata
from bot.agent.tools import ToolContext
from bot.reminders.delivery.engine import DeliveryEngine
from bot.runtime.pacing import SendPacer

TOKYO = ZoneInfo("Asia/Tokyo")
# Friday 2026-11-20, 10:00 in Tokyo; the Monday after is a holiday (勤労感謝の日).
START = datetime(2026, 11, 20, 1, 0, tzinfo=UTC)
ALICE, BOB = 1001, 2002
GUILD, CHANNEL = 77, 500

ContextFactory = Callable[..., ToolContext]

EngineFactory = Callable[..., DeliveryEngine]


def unpaced() -> SendPacer:
    """A pacer that never waits: these tests run on a manual clock."""
    return SendPacer(1_000_000, channel_messages=1_000_000)
