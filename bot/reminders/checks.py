"""Checks on what the model asks for, each failing with a sentence saying what to ask again."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from bot.reminders.errors import InvalidReminder, TimeInPast, TooFarAhead, UnreadableWhen
from bot.schedule.repeat import RepeatRule, RepeatTooFrequent, check_frequency, first_occurrence
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


def first_of_series(
    repeat: RepeatRule,
    wall: datetime,
    tz: ZoneInfo,
    now: datetime,
    *,
    min_interval_minutes: int,
    max_ahead_days: int,
) -> tuple[RepeatRule, datetime]:
    """A repeating reminder's rule anchored at the wall time asked, and its first instant;
    InvalidReminder when it repeats too often or ends before it starts."""
    try:
        check_frequency(repeat, min_interval_minutes)
    except RepeatTooFrequent as exc:
        raise InvalidReminder(f"{exc}: ask the user for a longer interval") from None
    # The wall time as asked: 02:30 on a spring-forward day fires at 03:30 once, then 02:30.
    repeat = repeat.anchored(wall)
    # "Weekdays at 9" asked on a Saturday starts on Monday; "毎月20日" on the 5th, this month.
    due = first_occurrence(repeat, wall, tz)
    check_future(due, tz, now, max_ahead_days)
    if repeat.until is not None and due.astimezone(tz).date() > repeat.until:
        raise InvalidReminder(
            f"the repeat ends on {repeat.until.isoformat()}, before its first reminder at "
            f"{local_iso(due, tz)}: ask the user when it should start or end"
        )
    return repeat, due
