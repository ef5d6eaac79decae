"""Checks on what the model asks for, each failing with a sentence saying what to ask again."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from bot.reminders.errors import InvalidReminder, TimeInPast, TooFarAhead, UnreadableWhen
from bot.schedule.times import UnreadableTime, local_iso, local_text, parse_local_time

# Leaves room for the mention and the "late by" note inside Discord's 2,000 characters.
MAX_CONTENT_CHARS = 1000


def checked_content(content: str) -> str:
    """The reminder text stripped, or InvalidReminder when empty or too long."""
    text = content.strip()
    if not text:
        raise InvalidReminder("`what` is empty: ask the user what to be reminded about")
    if len(text) > MAX_CONTENT_CHARS:
        raise InvalidReminder(
            f"`what` is {len(text)} characters, the most is {MAX_CONTENT_CHARS}: "
            "shorten it or ask the user for a shorter text"
        )
    return text


def checked_time(when: str, tz: ZoneInfo, now: datetime, max_ahead_days: int) -> datetime:
    """The UTC instant of an ISO local time that is in the future and not too far ahead."""
    try:
        due = parse_local_time(when, tz)
    except UnreadableTime as exc:
        raise UnreadableWhen(
            f"{exc}: work out the exact local date and time, or ask the user"
        ) from None
    check_future(due, tz, now, max_ahead_days)
    return due


def check_future(due: datetime, tz: ZoneInfo, now: datetime, max_ahead_days: int) -> None:
    """Refuse an instant in the past or more than max_ahead_days ahead."""
    if due <= now:
        raise TimeInPast(
            f"{local_iso(due, tz)} ({local_text(due, tz, now=now)}) is in the past "
            f"(it is now {local_iso(now, tz)}): ask the user for a future time"
        )
    if due > now + timedelta(days=max_ahead_days):
        raise TooFarAhead(
            f"{local_iso(due, tz)} is more than {max_ahead_days} days ahead: ask the user for "
            f"a time before {local_iso(now + timedelta(days=max_ahead_days), tz)}"
        )
