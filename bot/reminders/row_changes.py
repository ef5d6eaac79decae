"""Column values for changing a reminder row: rescheduled, cancelled, copied for a snooze."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from bot.reminders.table import ReminderState

# What a one-time snooze copy of a repeating reminder takes from its series.
COPIED_COLUMNS = (
    "guild_id",
    "channel_id",
    "user_id",
    "user_display_name",
    "content",
    "timezone",
    "origin_message_id",
    "target_user_id",
    "consent",
    "to_channel",
)


def rescheduled(due: datetime) -> dict[str, Any]:
    """Column values of a reminder moved to a new due time (its failures forgotten)."""
    return {
        "due_at": due,
        "next_attempt_at": due,
        "attempts": 0,
        "retries": 0,
        "last_error": None,
    }


def cancelled(now: datetime) -> dict[str, Any]:
    """Column values of a reminder cancelled at now (any delivery lease released)."""
    return {
        "state": ReminderState.CANCELLED,
        "cancelled_at": now,
        "lease_until": None,
        "claimed_by": None,
    }
