"""When a task runs: its first time as asked, the times after it, and its next few for a card."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from bot.schedule.repeat import (
    RepeatRule,
    RepeatTooFrequent,
    check_frequency,
    first_occurrence,
    following,
)
from bot.schedule.times import UnreadableTime, localize, parse_local_wall


class InvalidSchedule(ValueError):
    """The schedule cannot be used; the message says why, for the model."""


@dataclass(frozen=True)
class Plan:
    """A task's schedule worked out: the first run (UTC), its occurrence number and the rule."""

    first: datetime
    occurrence: int
    rule: RepeatRule | None
    tz: ZoneInfo

    def upcoming(self, count: int = 3) -> list[datetime]:
        """The next count run times (UTC), the first included; fewer when the series ends."""
        times = [self.first]
        due, number = self.first, self.occurrence
        while self.rule is not None and len(times) < count:
            nxt = following(self.rule, due, number, self.tz)
            if nxt is None:
                break
            due, number = nxt
            times.append(due)
        return times


def plan(
    first_run: str,
    rule: RepeatRule | None,
    tz: ZoneInfo,
    now: datetime,
    *,
    min_interval_minutes: int,
) -> Plan:
    """Work out when a task runs from the local time asked (ISO) and its repeat rule.

    A repeating task whose first time has passed starts at its next occurrence; a one-time
    task in the past is refused.
    """
    try:
        wall = parse_local_wall(first_run, tz)
    except UnreadableTime as exc:
        raise InvalidSchedule(str(exc)) from None
    if rule is None:
        first = localize(wall, tz).astimezone(UTC)
        if first <= now:
            raise InvalidSchedule(
                f"{first_run} has passed: give a future time, or a repeat rule for a repeating task"
            )
        return Plan(first, 1, None, tz)
    try:
        check_frequency(rule, min_interval_minutes)
    except RepeatTooFrequent as exc:
        raise InvalidSchedule(str(exc)) from None
    anchored = rule.anchored(wall)
    start = first_occurrence(anchored, wall, tz).astimezone(UTC)
    if start > now:
        return Plan(start, 1, anchored, tz)
    nxt = following(anchored, start, 1, tz, after=now)
    if nxt is None:
        raise InvalidSchedule("every run of this schedule is in the past: give a later end")
    return Plan(nxt[0], nxt[1], anchored, tz)


def after(
    rule: RepeatRule | None, due: datetime, occurrence: int, tz: ZoneInfo, now: datetime
) -> tuple[datetime, int] | None:
    """The run after the one due at `due` that is still ahead of now (None: the series ended)."""
    if rule is None:
        return None
    return following(rule, due, occurrence, tz, after=now)
