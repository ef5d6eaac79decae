"""Repeat rules agree with an independent implementation: dateutil's RFC 5545 rrule.

The reference builds each series as rrule wall times from the requested start, drops Japanese
holidays when the rule skips them, and turns wall times into instants with dateutil's own time
zones (a time skipped by DST moves forward by the gap; a repeated one is the first of the two).
Starts cluster on DST changes and month ends, where the two could disagree.
"""

from __future__ import annotations

import calendar
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta
from itertools import islice
from zoneinfo import ZoneInfo

import jpholiday
from dateutil import rrule as rr
from dateutil import tz as dtz
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.schedule.repeat import WEEKDAYS, RepeatRule, first_occurrence, following

ZONES = (
    "America/New_York",
    "Europe/London",
    "Australia/Sydney",
    "Australia/Lord_Howe",  # a 30-minute DST shift
    "America/Santiago",  # changes at midnight
    "America/Havana",  # changes at midnight, northern hemisphere
)
FIRST_DAY, LAST_DAY = date(2026, 1, 1), date(2028, 12, 31)
OCCURRENCES = 30
_RR_DAYS = (rr.MO, rr.TU, rr.WE, rr.TH, rr.FR, rr.SA, rr.SU)


def _dst_change_days() -> list[date]:
    days = []
    for name in ZONES:
        zone = ZoneInfo(name)
        day = FIRST_DAY
        while day < LAST_DAY:
            noon = datetime.combine(day, time(12), zone)
            if noon.utcoffset() != (noon - timedelta(days=1)).utcoffset():
                days.extend(day - timedelta(days=k) for k in range(3))
            day += timedelta(days=1)
    return days


def _month_ends() -> list[date]:
    ends = []
    for year in range(FIRST_DAY.year, LAST_DAY.year + 1):
        for month in range(1, 13):
            last = calendar.monthrange(year, month)[1]
            ends.extend(date(year, month, d) for d in range(last - 3, last + 1))
    return ends


DAYS = st.one_of(
    st.dates(FIRST_DAY, LAST_DAY),
    st.sampled_from(_dst_change_days()),
    st.sampled_from(_month_ends()),
)
# Early hours hold every DST gap and overlap of these zones.
TIMES = st.builds(
    time,
    st.one_of(st.integers(0, 3), st.integers(0, 23)),
    st.sampled_from([0, 15, 30, 45]),
)


@st.composite
def rules(draw: st.DrawFn) -> RepeatRule:
    """Any valid rule, ends and holiday skipping included."""
    kind = draw(
        st.sampled_from(
            ["daily", "weekdays", "weekly", "monthly", "every_days", "every_hours", "every_minutes"]
        )
    )
    fields: dict[str, object] = {"kind": kind, "skip_holidays": draw(st.booleans())}
    if kind == "every_days":
        fields["interval"] = draw(st.integers(1, 10))
    elif kind == "every_hours":
        fields["interval"] = draw(st.integers(1, 30))
    elif kind == "every_minutes":
        fields["interval"] = draw(st.sampled_from([5, 15, 45, 90, 360, 1440]))
    elif kind == "weekly":
        days = draw(st.lists(st.sampled_from(WEEKDAYS), min_size=1, max_size=3, unique=True))
        fields["days_of_week"] = draw(st.one_of(st.none(), st.just(days)))
    elif kind == "monthly":
        fields["day_of_month"] = draw(st.one_of(st.none(), st.integers(1, 31), st.integers(28, 31)))
    fields["count"] = draw(st.one_of(st.none(), st.integers(1, 12)))
    return RepeatRule.model_validate(fields)


def _instant(wall: datetime, zone: str) -> datetime:
    aware = dtz.resolve_imaginary(wall.replace(tzinfo=dtz.gettz(zone), fold=0))
    return aware.astimezone(UTC)


def _holiday(day: date) -> bool:
    return bool(jpholiday.is_holiday(day))


def _reference(rule: RepeatRule, start: datetime, zone: str) -> Iterator[datetime]:
    """The series as UTC instants, computed with rrule from the anchored rule."""
    if rule.kind in {"every_minutes", "every_hours"}:
        freq = rr.MINUTELY if rule.kind == "every_minutes" else rr.HOURLY
        begin = _instant(start, zone).replace(tzinfo=None)
        steps = rr.rrule(freq, interval=rule.interval, dtstart=begin)
        local = dtz.gettz(zone)
        instants = (s.replace(tzinfo=UTC) for s in steps)
        return (
            i for i in instants if not (rule.skip_holidays and _holiday(i.astimezone(local).date()))
        )
    if rule.kind == "daily":
        walls = rr.rrule(rr.DAILY, dtstart=start)
    elif rule.kind == "weekdays":
        walls = rr.rrule(rr.WEEKLY, byweekday=_RR_DAYS[:5], dtstart=start)
    elif rule.kind == "weekly":
        days = [_RR_DAYS[WEEKDAYS.index(d)] for d in rule.days_of_week or []]
        walls = rr.rrule(rr.WEEKLY, byweekday=days, dtstart=start)
    elif rule.kind == "monthly":
        wanted = rule.day_of_month or start.day
        if wanted <= 28:
            walls = rr.rrule(rr.MONTHLY, bymonthday=wanted, dtstart=start)
        else:  # the wanted day, or the month's last day when it has fewer
            walls = rr.rrule(
                rr.MONTHLY, bymonthday=range(28, wanted + 1), bysetpos=-1, dtstart=start
            )
    else:
        if rule.skip_holidays:
            # The documented rhythm: created on a holiday, it counts from the next working day.
            while _holiday(start.date()):
                start += timedelta(days=1)
        walls = rr.rrule(rr.DAILY, interval=rule.interval, dtstart=start)
    kept = (w for w in walls if not (rule.skip_holidays and _holiday(w.date())))
    return (_instant(w, zone) for w in kept)


def _ours(rule: RepeatRule, start: datetime, zone: str) -> list[datetime]:
    tz = ZoneInfo(zone)
    anchored = rule.anchored(start)
    due = first_occurrence(anchored, start, tz).astimezone(UTC)
    found = [due]
    number = 1
    while len(found) < OCCURRENCES:
        upcoming = following(anchored, due, number, tz)
        if upcoming is None:
            break
        due, number = upcoming
        found.append(due)
    return found


def _expected(rule: RepeatRule, start: datetime, zone: str) -> list[datetime]:
    limit = OCCURRENCES if rule.count is None else min(rule.count, OCCURRENCES)
    return list(islice(_reference(rule.anchored(start), start, zone), limit))


@settings(max_examples=1500, deadline=None)
@given(rule=rules(), day=DAYS, at=TIMES, zone=st.sampled_from(ZONES))
def test_every_rule_matches_rrule_across_dst_zones_and_month_ends(
    rule: RepeatRule, day: date, at: time, zone: str
) -> None:
    start = datetime.combine(day, at)
    assert _ours(rule, start, zone) == _expected(rule, start, zone)


@settings(max_examples=400, deadline=None)
@given(
    day_of_month=st.integers(1, 31),
    day=st.sampled_from(_month_ends()) | st.dates(FIRST_DAY, LAST_DAY),
    at=TIMES,
    zone=st.sampled_from(ZONES),
)
def test_a_monthly_rule_starts_on_the_first_matching_day_at_or_after_the_request(
    day_of_month: int, day: date, at: time, zone: str
) -> None:
    rule = RepeatRule(kind="monthly", day_of_month=day_of_month)
    start = datetime.combine(day, at)
    first = _ours(rule, start, zone)[0]
    assert first == _expected(rule, start, zone)[0]
    assert first.astimezone(ZoneInfo(zone)).date() >= day
