"""Repeat rules: wall-clock occurrences in the reminder's zone, holidays, ends and frequency."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from pydantic import ValidationError

from bot.schedule.repeat import (
    RepeatRule,
    RepeatTooFrequent,
    check_frequency,
    dump_rule,
    first_occurrence,
    following,
    load_rule,
    next_occurrence,
)
from bot.schedule.words import summary

NEW_YORK = ZoneInfo("America/New_York")
TOKYO = ZoneInfo("Asia/Tokyo")


def series(rule: RepeatRule, start: datetime, tz: ZoneInfo, n: int) -> list[datetime]:
    out = []
    current = start
    for _ in range(n):
        current = next_occurrence(rule, current, tz)
        out.append(current)
    return out


def test_daily_stays_at_nine_local_across_both_new_york_dst_changes() -> None:
    start = datetime(2026, 3, 6, 9, 0, tzinfo=NEW_YORK)
    rule = RepeatRule(kind="daily").anchored(start)
    spring = series(rule, start, NEW_YORK, 4)
    assert [d.strftime("%m-%d %H:%M") for d in spring] == [
        "03-07 09:00",
        "03-08 09:00",
        "03-09 09:00",
        "03-10 09:00",
    ]
    # 23 real hours between the Saturday and the Sunday of the change.
    assert spring[1].astimezone(UTC) - spring[0].astimezone(UTC) == timedelta(hours=23)
    autumn = series(rule, datetime(2026, 10, 31, 9, 0, tzinfo=NEW_YORK), NEW_YORK, 2)
    assert [d.strftime("%m-%d %H:%M %z") for d in autumn] == [
        "11-01 09:00 -0500",
        "11-02 09:00 -0500",
    ]


def test_wall_time_skipped_by_dst_moves_forward_then_returns() -> None:
    start = datetime(2026, 3, 7, 2, 30, tzinfo=NEW_YORK)
    rule = RepeatRule(kind="daily").anchored(start)
    skipped, after = series(rule, start, NEW_YORK, 2)
    assert skipped.strftime("%m-%d %H:%M") == "03-08 03:30"
    assert after.strftime("%m-%d %H:%M") == "03-09 02:30"


def test_ambiguous_wall_time_takes_the_first_of_the_two() -> None:
    start = datetime(2026, 10, 31, 1, 30, tzinfo=NEW_YORK)
    rule = RepeatRule(kind="daily").anchored(start)
    (repeated,) = series(rule, start, NEW_YORK, 1)
    assert repeated.astimezone(UTC) == datetime(2026, 11, 1, 5, 30, tzinfo=UTC)  # 01:30 EDT


def test_weekdays_skip_weekend_and_labour_thanksgiving_day_when_skipping_holidays() -> None:
    friday = datetime(2026, 11, 20, 9, 0, tzinfo=TOKYO)
    with_holidays = RepeatRule(kind="weekdays", skip_holidays=True).anchored(friday)
    plain = RepeatRule(kind="weekdays").anchored(friday)
    # 2026-11-23 (Mon) is 勤労感謝の日.
    assert next_occurrence(with_holidays, friday, TOKYO).date() == date(2026, 11, 24)
    assert next_occurrence(plain, friday, TOKYO).date() == date(2026, 11, 23)


def test_weekly_on_chosen_days() -> None:
    monday = datetime(2026, 11, 16, 7, 0, tzinfo=TOKYO)
    rule = RepeatRule(kind="weekly", days_of_week=["mon", "thu"]).anchored(monday)
    assert [d.date().isoformat() for d in series(rule, monday, TOKYO, 3)] == [
        "2026-11-19",
        "2026-11-23",
        "2026-11-26",
    ]


def test_weekly_defaults_to_the_first_days_weekday() -> None:
    rule = RepeatRule(kind="weekly").anchored(datetime(2026, 11, 18, 7, 0, tzinfo=TOKYO))
    assert rule.days_of_week == ["wed"]


def test_monthly_on_the_31st_falls_on_the_last_day_of_short_months() -> None:
    start = datetime(2026, 1, 31, 9, 0, tzinfo=TOKYO)
    rule = RepeatRule(kind="monthly").anchored(start)
    assert [d.date().isoformat() for d in series(rule, start, TOKYO, 4)] == [
        "2026-02-28",
        "2026-03-31",
        "2026-04-30",
        "2026-05-31",
    ]


def test_every_90_minutes_steps_real_elapsed_time_through_dst_end() -> None:
    start = datetime(2026, 10, 31, 23, 30, tzinfo=NEW_YORK)
    rule = RepeatRule(kind="every_minutes", interval=90)
    occurrences = series(rule, start, NEW_YORK, 3)
    instants = [d.astimezone(UTC) for d in [start, *occurrences]]
    gaps = [b - a for a, b in itertools.pairwise(instants)]
    assert all(gap.total_seconds() == 90 * 60 for gap in gaps)
    assert [d.strftime("%H:%M %z") for d in occurrences] == [
        "01:00 -0400",
        "01:30 -0500",
        "03:00 -0500",
    ]


def test_every_hours_skips_a_holiday_and_resumes_the_next_day() -> None:
    sunday_night = datetime(2026, 11, 22, 22, 0, tzinfo=TOKYO)
    rule = RepeatRule(kind="every_hours", interval=4, skip_holidays=True)
    nxt = next_occurrence(rule, sunday_night, TOKYO)
    assert nxt == datetime(2026, 11, 24, 2, 0, tzinfo=TOKYO)


def test_series_ends_after_count_occurrences() -> None:
    start = datetime(2026, 11, 20, 9, 0, tzinfo=TOKYO)
    rule = RepeatRule(kind="daily", count=3).anchored(start)
    second = following(rule, start, 1, TOKYO)
    assert second is not None and second[1] == 2
    third = following(rule, second[0], 2, TOKYO)
    assert third is not None and third[1] == 3
    assert following(rule, third[0], 3, TOKYO) is None


def test_series_ends_after_its_end_date() -> None:
    start = datetime(2026, 12, 30, 9, 0, tzinfo=TOKYO)
    rule = RepeatRule(kind="daily", until=date(2026, 12, 31)).anchored(start)
    last = following(rule, start, 1, TOKYO)
    assert last is not None
    assert last[0].astimezone(TOKYO).date() == date(2026, 12, 31)
    assert following(rule, last[0], 2, TOKYO) is None


def test_catch_up_skips_missed_occurrences_but_counts_them() -> None:
    start = datetime(2026, 11, 20, 9, 0, tzinfo=TOKYO)
    rule = RepeatRule(kind="daily").anchored(start)
    after = datetime(2026, 11, 23, 12, 0, tzinfo=TOKYO)
    due, number = following(rule, start, 1, TOKYO, after=after) or (None, 0)
    assert due == datetime(2026, 11, 24, 9, 0, tzinfo=TOKYO)
    assert number == 5


def test_catch_up_of_a_minutes_rule_jumps_without_walking_every_step() -> None:
    start = datetime(2026, 1, 1, 0, 0, tzinfo=TOKYO)
    rule = RepeatRule(kind="every_minutes", interval=5)
    after = datetime(2026, 12, 31, 23, 58, tzinfo=TOKYO)
    result = following(rule, start, 1, TOKYO, after=after)
    assert result is not None
    assert result[0] == datetime(2027, 1, 1, 0, 0, tzinfo=TOKYO)
    assert result[1] == 1 + 365 * 24 * 12


def test_first_occurrence_of_weekdays_asked_on_saturday_is_monday() -> None:
    saturday = datetime(2026, 11, 21, 9, 0, tzinfo=TOKYO)
    rule = RepeatRule(kind="weekdays").anchored(saturday)
    assert first_occurrence(rule, saturday, TOKYO).date() == date(2026, 11, 23)


def test_rule_more_frequent_than_the_minimum_is_refused_with_a_sentence() -> None:
    with pytest.raises(RepeatTooFrequent, match=r"every 2 minutes is too frequent.*5 minutes"):
        check_frequency(RepeatRule(kind="every_minutes", interval=2), 5)
    check_frequency(RepeatRule(kind="every_minutes", interval=5), 5)
    with pytest.raises(RepeatTooFrequent):
        check_frequency(RepeatRule(kind="every_hours", interval=1), 120)


def test_fields_that_do_not_fit_the_kind_are_rejected() -> None:
    with pytest.raises(ValidationError, match="days_of_week applies only to kind weekly"):
        RepeatRule(kind="daily", days_of_week=["mon"])
    with pytest.raises(ValidationError, match="interval applies only"):
        RepeatRule(kind="weekly", interval=2)


def test_summary_reads_as_short_japanese() -> None:
    anchor = datetime(2026, 1, 31, 9, 0, tzinfo=TOKYO)
    monthly = RepeatRule(kind="monthly", count=10).anchored(anchor)
    assert summary(monthly) == "毎月 31日 09:00（その日がない月は末日、10回まで）"
    weekly = RepeatRule(kind="weekly", days_of_week=["mon", "thu"], skip_holidays=True)
    assert summary(weekly.anchored(anchor)) == "毎週 月・木曜 09:00（祝日は休み）"
    assert summary(RepeatRule(kind="every_minutes", interval=90)) == "90分ごと"


def test_rule_round_trips_through_its_stored_json() -> None:
    rule = RepeatRule(kind="weekly", days_of_week=["fri"], until=date(2027, 3, 31)).anchored(
        datetime(2026, 11, 20, 18, 45, tzinfo=TOKYO)
    )
    assert load_rule(dump_rule(rule)) == rule
    assert load_rule(None) is None


def test_every_3_days_created_on_a_holiday_counts_its_rhythm_from_the_next_working_day() -> None:
    # 2026-11-23 (Mon) is 勤労感謝の日: the series starts on the 24th and steps from there.
    holiday = datetime(2026, 11, 23, 9, 0)
    rule = RepeatRule(kind="every_days", interval=3, skip_holidays=True).anchored(holiday)
    first = first_occurrence(rule, holiday, TOKYO)
    assert first == datetime(2026, 11, 24, 9, 0, tzinfo=TOKYO)
    assert [d.date().isoformat() for d in series(rule, first, TOKYO, 2)] == [
        "2026-11-27",
        "2026-11-30",
    ]


def test_first_time_in_a_dst_gap_moves_forward_once_and_the_series_keeps_its_wall_time() -> None:
    asked = datetime(2026, 3, 8, 2, 30)  # skipped in New York that day
    rule = RepeatRule(kind="daily").anchored(asked)
    first = first_occurrence(rule, asked, NEW_YORK)
    assert first.strftime("%m-%d %H:%M") == "03-08 03:30"
    assert [d.strftime("%m-%d %H:%M") for d in series(rule, first, NEW_YORK, 2)] == [
        "03-09 02:30",
        "03-10 02:30",
    ]


def test_monthly_asked_on_the_5th_for_the_20th_starts_on_this_months_20th() -> None:
    fifth = datetime(2026, 11, 5, 8, 0)
    rule = RepeatRule(kind="monthly", day_of_month=20).anchored(fifth)
    assert first_occurrence(rule, fifth, TOKYO) == datetime(2026, 11, 20, 8, 0, tzinfo=TOKYO)
