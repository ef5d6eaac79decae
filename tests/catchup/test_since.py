"""Catch-up starting points as members type them, read without a model call."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.schedule.since import MAX_BACK, parse_since
from bot.schedule.times import UnreadableTime

TOKYO = ZoneInfo("Asia/Tokyo")
# Monday 7 December 2026, 12:00 in Tokyo.
NOW = datetime(2026, 12, 7, 3, 0, tzinfo=UTC)


def tokyo(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 12, day, hour, minute, tzinfo=TOKYO).astimezone(UTC)


@pytest.mark.parametrize(
    ("said", "instant"),
    [
        ("3h", tokyo(7, 9)),
        ("30分", tokyo(7, 11, 30)),
        ("3時間前から", tokyo(7, 9)),
        ("2 hours ago", tokyo(7, 10)),
        ("1h30m", tokyo(7, 10, 30)),
        ("昨日の夜から", tokyo(6, 18)),
        ("last night", tokyo(6, 18)),
        ("昨日", tokyo(6, 0)),
        ("yesterday", tokyo(6, 0)),
        ("一昨日", tokyo(5, 0)),
        ("今朝", tokyo(7, 6)),
        ("09:00", tokyo(7, 9)),
        ("21時から", tokyo(6, 21)),
        ("昨日の22時", tokyo(6, 22)),
        ("2026-12-06T20:00", tokyo(6, 20)),
    ],
)
def test_a_typed_time_is_read_in_the_members_zone(said: str, instant: datetime) -> None:
    assert parse_since(said, TOKYO, NOW) == instant


def test_a_catch_up_reaches_back_two_weeks_at_most() -> None:
    assert parse_since("90d", TOKYO, NOW) == NOW - MAX_BACK
    assert timedelta(days=14) == MAX_BACK


@pytest.mark.parametrize("said", ["hello", "明日", "", "2026-12-31T09:00"])
def test_what_names_no_past_time_is_refused(said: str) -> None:
    with pytest.raises(UnreadableTime):
        parse_since(said, TOKYO, NOW)
