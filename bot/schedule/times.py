"""Local wall-clock time: reading the model's ISO times and showing instants to people."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

WEEKDAY_KANJI = "月火水木金土日"


class UnreadableTime(ValueError):
    """The text is not an ISO 8601 local date and time; the message says why for the model."""


def localize(wall: datetime, tz: ZoneInfo) -> datetime:
    """Attach tz to a naive wall time: a time skipped by DST moves forward, a repeated one is
    the first of the two."""
    # fold=0 picks the earlier of two repeated times and, inside a gap, the offset from before
    # the change, which lands after the gap once normalised through UTC.
    aware = wall.replace(tzinfo=tz, fold=0)
    return aware.astimezone(UTC).astimezone(tz)


def _parse_iso(text: str) -> datetime:
    raw = text.strip()
    if raw.endswith(("z", "Z")):
        raw = raw[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(raw)
    except ValueError:
        raise UnreadableTime(
            f"{text!r} is not an ISO 8601 local date and time such as 2026-12-01T09:00"
        ) from None
    try:
        date.fromisoformat(raw)
    except ValueError:
        pass
    else:
        raise UnreadableTime(f"{text!r} has a date but no time of day")
    return parsed


def parse_local_time(text: str, tz: ZoneInfo) -> datetime:
    """Read `2026-12-01T09:00` (naive means the user's zone) as an aware UTC instant."""
    parsed = _parse_iso(text)
    if parsed.tzinfo is None:
        return localize(parsed, tz).astimezone(UTC)
    return parsed.astimezone(UTC)


def parse_local_wall(text: str, tz: ZoneInfo) -> datetime:
    """The wall-clock time asked for (naive, in tz), even one that DST skips that day."""
    parsed = _parse_iso(text)
    return parsed if parsed.tzinfo is None else parsed.astimezone(tz).replace(tzinfo=None)


def local_iso(instant: datetime, tz: ZoneInfo) -> str:
    """ISO 8601 with the zone's offset, to the minute (what the model reads and writes)."""
    return instant.astimezone(tz).isoformat(timespec="minutes")


def local_text(instant: datetime, tz: ZoneInfo, *, now: datetime | None = None) -> str:
    """Japanese-friendly local time such as `12月1日(火) 09:00`; the year only when not this one."""
    local = instant.astimezone(tz)
    day = f"{local.month}月{local.day}日({WEEKDAY_KANJI[local.weekday()]})"
    if now is not None and now.astimezone(tz).year != local.year:
        day = f"{local.year}年{day}"
    return f"{day} {local:%H:%M}"


def date_text(day: date) -> str:
    """A date such as `2026年12月31日(木)`."""
    return f"{day.year}年{day.month}月{day.day}日({WEEKDAY_KANJI[day.weekday()]})"


@dataclass(frozen=True)
class DurationUnits:
    """How a language writes seconds, minutes, hours and days, and what joins two parts."""

    second: str
    minute: str
    hour: str
    day: str
    joiner: str


JAPANESE_UNITS = DurationUnits("秒", "分", "時間", "日", "")
ENGLISH_UNITS = DurationUnits(" s", " min", " h", " d", " ")


def duration_text(delta: timedelta, units: DurationUnits = JAPANESE_UNITS) -> str:
    """A rounded duration: `45秒`, `5分`, `1時間5分`, `2日3時間` (or `1 h 5 min` in English)."""
    seconds = max(0, int(delta.total_seconds()))
    if seconds < 60:
        return f"{seconds}{units.second}"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes}{units.minute}"
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        rest = f"{units.joiner}{minutes}{units.minute}" if minutes else ""
        return f"{hours}{units.hour}{rest}"
    days, hours = divmod(hours, 24)
    rest = f"{units.joiner}{hours}{units.hour}" if hours else ""
    return f"{days}{units.day}{rest}"


def utc_offset_text(instant: datetime, tz: ZoneInfo) -> str:
    """The zone's offset at instant, such as `UTC+09:00`."""
    offset = instant.astimezone(tz).utcoffset() or timedelta()
    sign = "-" if offset < timedelta() else "+"
    minutes = abs(int(offset.total_seconds())) // 60
    return f"UTC{sign}{minutes // 60:02d}:{minutes % 60:02d}"
