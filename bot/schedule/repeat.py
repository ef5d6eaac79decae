"""Repeat rules: what the model fills in, and the next occurrence on local wall-clock time."""

from __future__ import annotations

import calendar
import math
from datetime import UTC, date, datetime, time, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

import jpholiday
from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.json_schema import SkipJsonSchema

from bot.schedule.times import localize

Weekday = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
RepeatKind = Literal[
    "daily", "weekdays", "weekly", "monthly", "every_minutes", "every_hours", "every_days"
]
WEEKDAYS: tuple[Weekday, ...] = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_INTERVAL_KINDS = {"every_minutes", "every_hours", "every_days"}
# Elapsed-time kinds step real time; the others keep a wall-clock time in the reminder's zone.
_ELAPSED_KINDS = {"every_minutes", "every_hours"}
# Holidays are sparse, so no rule needs more candidate days than this to find its next one.
_MAX_SEARCH_DAYS = 3700


class RepeatTooFrequent(ValueError):
    """The rule fires more often than the bot allows; the message says so for the model."""


class RepeatRule(BaseModel):
    """How a reminder repeats."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: RepeatKind = Field(
        description="weekly takes days_of_week, monthly day_of_month, every_* interval"
    )
    interval: int = Field(1, ge=1, le=10000, description="N of every_*")
    days_of_week: list[Weekday] | None = Field(None, description="weekly; default the first day's")
    day_of_month: int | None = Field(
        None,
        ge=1,
        le=31,
        description="monthly; 29-31: a shorter month's last day",
    )
    count: int | None = Field(
        None,
        ge=1,
        le=10000,
        description="how many times in all",
    )
    until: date | None = Field(None, description="last local date it may fire")
    skip_holidays: bool = Field(False, description="skip Japanese public holidays")
    # The wall-clock time the series keeps (so 09:00 stays 09:00 across DST); set by the service.
    at: SkipJsonSchema[time | None] = None

    @model_validator(mode="after")
    def _fields_fit_kind(self) -> RepeatRule:
        if self.interval != 1 and self.kind not in _INTERVAL_KINDS:
            raise ValueError("interval applies only to every_minutes, every_hours and every_days")
        if self.days_of_week is not None and self.kind != "weekly":
            raise ValueError("days_of_week applies only to kind weekly")
        if self.days_of_week is not None and not self.days_of_week:
            raise ValueError('days_of_week must name at least one day, e.g. ["mon"]')
        if self.day_of_month is not None and self.kind != "monthly":
            raise ValueError("day_of_month applies only to kind monthly")
        return self

    def anchored(self, first_local: datetime) -> RepeatRule:
        """This rule with the requested wall time, weekday or day of month filled in.

        Pass the wall time as asked (naive, or aware in the rule's zone), not one moved by a
        DST gap: the series keeps it.
        """
        update: dict[str, object] = {"at": first_local.time().replace(second=0, microsecond=0)}
        if self.kind == "weekly" and not self.days_of_week:
            update["days_of_week"] = [WEEKDAYS[first_local.weekday()]]
        if self.kind == "monthly" and self.day_of_month is None:
            update["day_of_month"] = first_local.day
        return self.model_copy(update=update)

    def shortest_gap(self) -> timedelta:
        """The shortest time between two occurrences."""
        if self.kind == "every_minutes":
            return timedelta(minutes=self.interval)
        if self.kind == "every_hours":
            return timedelta(hours=self.interval)
        if self.kind == "every_days":
            return timedelta(days=self.interval)
        return timedelta(days=1)


def check_frequency(rule: RepeatRule, min_interval_minutes: int) -> None:
    """Refuse a rule that repeats more often than every min_interval_minutes."""
    if rule.shortest_gap() < timedelta(minutes=min_interval_minutes):
        gap = int(rule.shortest_gap().total_seconds() // 60)
        raise RepeatTooFrequent(
            f"repeating every {gap} minutes is too frequent: the shortest allowed interval is "
            f"{min_interval_minutes} minutes"
        )


def _skipped(rule: RepeatRule, day: date) -> bool:
    if rule.kind == "weekdays" and day.weekday() >= 5:
        return True
    return rule.skip_holidays and jpholiday.is_holiday(day)


def _wall_day_matches(rule: RepeatRule, day: date) -> bool:
    if rule.kind == "weekly":
        days = rule.days_of_week or list(WEEKDAYS)
        if WEEKDAYS[day.weekday()] not in days:
            return False
    if rule.kind == "monthly" and rule.day_of_month is not None:
        last = calendar.monthrange(day.year, day.month)[1]
        if day.day != min(rule.day_of_month, last):
            return False
    return not _skipped(rule, day)


def _next_month_day(rule: RepeatRule, day: date) -> date:
    year, month = (day.year + 1, 1) if day.month == 12 else (day.year, day.month + 1)
    wanted = rule.day_of_month or day.day
    return date(year, month, min(wanted, calendar.monthrange(year, month)[1]))


def _next_elapsed(rule: RepeatRule, previous: datetime, tz: ZoneInfo) -> datetime:
    step = rule.shortest_gap()
    candidate = previous.astimezone(UTC) + step
    for _ in range(_MAX_SEARCH_DAYS):
        day = candidate.astimezone(tz).date()
        if not _skipped(rule, day):
            return candidate.astimezone(tz)
        # Jump whole steps past the skipped day instead of walking it step by step.
        next_day = localize(datetime.combine(day + timedelta(days=1), time()), tz)
        candidate += step * math.ceil((next_day - candidate) / step)
    raise ValueError(f"no occurrence of {rule.kind} within {_MAX_SEARCH_DAYS} days")


def next_occurrence(rule: RepeatRule, previous_local: datetime, tz: ZoneInfo) -> datetime:
    """The occurrence after previous_local (aware, in tz), ignoring count and until."""
    if rule.kind in _ELAPSED_KINDS:
        return _next_elapsed(rule, previous_local, tz)
    wall = rule.at or previous_local.astimezone(tz).time()
    day = previous_local.astimezone(tz).date()
    for _ in range(_MAX_SEARCH_DAYS):
        if rule.kind == "monthly":
            day = _next_month_day(rule, day)
        elif rule.kind == "every_days":
            day += timedelta(days=rule.interval)
        else:
            day += timedelta(days=1)
        if _wall_day_matches(rule, day):
            return localize(datetime.combine(day, wall), tz)
    raise ValueError(f"no occurrence of {rule.kind} within {_MAX_SEARCH_DAYS} days")


def first_occurrence(rule: RepeatRule, requested: datetime, tz: ZoneInfo) -> datetime:
    """The first occurrence at or after the requested start, in tz.

    That is the requested day when it fits the rule, else the first later day that does: "毎月
    20日" asked on the 5th starts on this month's 20th, "毎月末" asked on the 29th on this
    month's end. Pass the wall time the member asked for (naive) rather than an instant: a time
    skipped by DST moves forward for that occurrence only, while rule.at keeps the asked time.
    An every-N-days rule that skips holidays and is asked for on one starts on the next working
    day, and its rhythm counts from there.
    """
    wall = requested if requested.tzinfo is None else requested.astimezone(tz).replace(tzinfo=None)
    if rule.kind in _ELAPSED_KINDS:
        start = localize(wall, tz)
        return start if not _skipped(rule, start.date()) else _next_elapsed(rule, start, tz)
    at = rule.at or wall.time()
    day = wall.date()
    for _ in range(_MAX_SEARCH_DAYS):
        if _wall_day_matches(rule, day):
            return localize(datetime.combine(day, at), tz)
        day += timedelta(days=1)
    raise ValueError(f"no occurrence of {rule.kind} within {_MAX_SEARCH_DAYS} days")


def _ended(rule: RepeatRule, occurrence: int, due_local: datetime) -> bool:
    if rule.count is not None and occurrence > rule.count:
        return True
    return rule.until is not None and due_local.date() > rule.until


def following(
    rule: RepeatRule,
    previous_due: datetime,
    occurrence: int,
    tz: ZoneInfo,
    *,
    after: datetime | None = None,
) -> tuple[datetime, int] | None:
    """The next (due instant in UTC, occurrence number) after occurrence, or None when the
    series is over; occurrences at or before `after` are skipped but still counted."""
    current = previous_due.astimezone(tz)
    number = occurrence
    if after is not None and rule.kind in _ELAPSED_KINDS and not rule.skip_holidays:
        # After a long downtime, jump straight to the last missed step.
        missed = math.floor((after - current) / rule.shortest_gap())
        if missed > 1:
            current = (current.astimezone(UTC) + rule.shortest_gap() * (missed - 1)).astimezone(tz)
            number += missed - 1
    while True:
        current = next_occurrence(rule, current, tz)
        number += 1
        if _ended(rule, number, current):
            return None
        if after is None or current > after:
            return current.astimezone(UTC), number


def load_rule(stored: str | None) -> RepeatRule | None:
    """The rule stored in a reminder row (JSON), or None for a one-time reminder."""
    return None if stored is None else RepeatRule.model_validate_json(stored)


def dump_rule(rule: RepeatRule | None) -> str | None:
    """JSON for the reminder row's repeat column."""
    return None if rule is None else rule.model_dump_json(exclude_none=True)
