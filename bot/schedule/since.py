"""A point in the past as members type it: "3h", "30分", "昨日の夜から", "yesterday", "09:00".

`/otomo catchup since:` reads it without a model call. Times are wall times in the member's
zone (DST-safe through `localize`), and the answer is an aware UTC instant; a typed time that
lies ahead (a clock time later today) means the same time yesterday.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from bot.schedule.times import UnreadableTime, localize, parse_local_time

# The furthest back a catch-up may start: older than this is not "what I missed".
MAX_BACK = timedelta(days=14)

_UNITS: dict[str, timedelta] = {
    "s": timedelta(seconds=1),
    "sec": timedelta(seconds=1),
    "秒": timedelta(seconds=1),
    "m": timedelta(minutes=1),
    "min": timedelta(minutes=1),
    "mins": timedelta(minutes=1),
    "minute": timedelta(minutes=1),
    "minutes": timedelta(minutes=1),
    "分": timedelta(minutes=1),
    "h": timedelta(hours=1),
    "hr": timedelta(hours=1),
    "hrs": timedelta(hours=1),
    "hour": timedelta(hours=1),
    "hours": timedelta(hours=1),
    "時間": timedelta(hours=1),
    "d": timedelta(days=1),
    "day": timedelta(days=1),
    "days": timedelta(days=1),
    "日": timedelta(days=1),
    "日間": timedelta(days=1),
    "w": timedelta(weeks=1),
    "week": timedelta(weeks=1),
    "weeks": timedelta(weeks=1),
    "週間": timedelta(weeks=1),
}
_RELATIVE = re.compile(
    r"(\d+(?:\.\d+)?)\s*(" + "|".join(sorted(map(re.escape, _UNITS), key=len, reverse=True)) + ")"
)
# Words that only frame the time: "from", "since", "ago", "前から", "以降"...
_FILLER = re.compile(r"(から|以降|より|前|ago|since|from|the|の|\s)+")
_CLOCK = re.compile(r"(\d{1,2})(?::(\d{2})|時(?:(\d{1,2})分)?)")

# Named parts of a day: (days back, wall time).
_NAMED: tuple[tuple[tuple[str, ...], int, time], ...] = (
    (("一昨日", "おととい", "day before yesterday"), 2, time(0)),
    (("昨日の夜", "昨夜", "ゆうべ", "昨晩", "last night", "yesterday evening"), 1, time(18)),
    (("昨日の朝", "yesterday morning"), 1, time(6)),
    (("昨日の昼", "yesterday afternoon"), 1, time(12)),
    (("昨日", "きのう", "yesterday"), 1, time(0)),
    (("今朝", "this morning"), 0, time(6)),
    (("今日の昼", "お昼", "this afternoon", "noon"), 0, time(12)),
    (("今日", "きょう", "today"), 0, time(0)),
)


def parse_since(text: str, tz: ZoneInfo, now: datetime) -> datetime:
    """The instant `text` names, in the past (UTC); raises UnreadableTime when it names none."""
    said = unicodedata.normalize("NFKC", text).strip().lower()
    if not said:
        raise UnreadableTime("empty")
    instant = _relative(said, now) or _named(said, tz, now) or _clock(said, tz, now)
    if instant is None:
        try:
            instant = parse_local_time(said.upper() if "t" in said else said, tz)
        except UnreadableTime:
            raise UnreadableTime(f"{text!r} names no time") from None
    if instant > now:
        raise UnreadableTime(f"{text!r} is in the future")
    return max(instant, now - MAX_BACK)


def _relative(said: str, now: datetime) -> datetime | None:
    found = list(_RELATIVE.finditer(said))
    if not found or _FILLER.sub("", _RELATIVE.sub("", said)):
        return None
    back = sum((float(m.group(1)) * _UNITS[m.group(2)] for m in found), timedelta())
    return now - min(back, MAX_BACK)


def _named(said: str, tz: ZoneInfo, now: datetime) -> datetime | None:
    local = now.astimezone(tz)
    for words, days_back, wall in _NAMED:
        if any(word in said for word in words):
            day = local.date() - timedelta(days=days_back)
            clock = _clock_of(said)
            chosen = clock if clock is not None else wall
            return localize(datetime.combine(day, chosen), tz).astimezone(UTC)
    return None


def _clock_of(said: str) -> time | None:
    match = _CLOCK.search(said)
    if match is None:
        return None
    hour = int(match.group(1))
    minute = int(match.group(2) or match.group(3) or 0)
    if ("pm" in said or "午後" in said) and hour < 12:
        hour += 12
    if hour > 23 or minute > 59:
        return None
    return time(hour, minute)


def _clock(said: str, tz: ZoneInfo, now: datetime) -> datetime | None:
    clock = _clock_of(said)
    if clock is None or re.search(r"\d{4}-\d{2}-\d{2}", said):
        return None
    local = now.astimezone(tz)
    today = localize(datetime.combine(local.date(), clock), tz)
    if today > local:
        today = localize(datetime.combine(local.date() - timedelta(days=1), clock), tz)
    return today.astimezone(UTC)
