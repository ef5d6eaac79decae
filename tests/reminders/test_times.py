"""Local time in and out: the model's ISO strings, and what people read."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.reminders.delivery.sender import ReminderDelivery, delivery_nonce
from bot.reminders.display import ReminderView, describe
from bot.reminders.instructions import reminder_instructions
from bot.schedule.times import (
    UnreadableTime,
    duration_text,
    local_text,
    parse_local_time,
)
from tests.reminders.support import START, TOKYO


def test_local_text_is_japanese_friendly_with_the_year_only_when_it_differs() -> None:
    instant = datetime(2026, 12, 1, 0, 0, tzinfo=UTC)
    assert local_text(instant, TOKYO, now=START) == "12月1日(火) 09:00"
    assert local_text(instant + timedelta(days=365), TOKYO, now=START) == "2027年12月1日(水) 09:00"


def test_a_time_skipped_by_dst_is_moved_forward() -> None:
    parsed = parse_local_time("2026-03-08T02:30", ZoneInfo("America/New_York"))
    assert parsed == datetime(2026, 3, 8, 7, 30, tzinfo=UTC)  # 03:30 EDT


@pytest.mark.parametrize("text", ["", "9:00", "2026-13-01T09:00", "明日の9時"])
def test_unreadable_times_quote_the_input(text: str) -> None:
    with pytest.raises(UnreadableTime, match="is not an ISO 8601 local date and time"):
        parse_local_time(text, TOKYO)


@pytest.mark.parametrize(
    ("delta", "text"),
    [
        (timedelta(seconds=45), "45秒"),
        (timedelta(minutes=5, seconds=59), "5分"),
        (timedelta(hours=1, minutes=5), "1時間5分"),
        (timedelta(hours=2), "2時間"),
        (timedelta(days=2, hours=3), "2日3時間"),
    ],
)
def test_durations_read_naturally(delta: timedelta, text: str) -> None:
    assert duration_text(delta) == text


def test_nonce_fits_discords_25_characters_even_for_huge_ids() -> None:
    assert delivery_nonce(12, 3) == "r12o3"
    assert len(delivery_nonce(2**31 - 1, 2**31 - 1)) <= 25


def test_delivery_text_mentions_the_owner_and_says_how_late_it_is() -> None:
    delivery = ReminderDelivery(
        reminder_id=1,
        occurrence=1,
        guild_id=77,
        channel_id=500,
        user_id=1001,
        user_display_name="alice",
        content="歯医者",
        due_at=START,
        due_text="11月20日(金) 10:00",
        late_by=timedelta(minutes=7),
        origin_message_id=9999,
        repeat_text=None,
        nonce="r1o1",
        attempt=1,
    )
    assert delivery.text() == "<@1001> ⏰ 歯医者\n-# 11月20日(金) 10:00 の予定 ・ 7分遅れ"
    assert delivery.origin_url == "https://discord.com/channels/77/500/9999"


def test_instructions_give_the_zone_and_the_coming_weekdays_but_not_the_minute() -> None:
    text = reminder_instructions(START, TOKYO)
    assert "Asia/Tokyo, UTC+09:00" in text
    assert "2026-11-20(金)今日" in text
    assert "2026-11-23(月)祝日:勤労感謝の日" in text
    assert "2026-11-21(土)明日" in text
    # The time of day comes with the prompt's context: this text stays the same all day.
    assert text == reminder_instructions(START + timedelta(hours=5), TOKYO)


def test_describe_is_one_line_for_people() -> None:
    view = ReminderView(
        id=3,
        user_id=1,
        guild_id=None,
        channel_id=2,
        content="ゴミ出し",
        due_at=START,
        state="pending",
        occurrence=1,
        repeat=None,
        tz=TOKYO,
    )
    assert describe(view, TOKYO, now=START) == "#3 11月20日(金) 10:00 「ゴミ出し」"


def test_durations_read_naturally_in_japanese_and_english() -> None:
    from datetime import timedelta

    from bot.schedule.times import ENGLISH_UNITS, duration_text

    assert duration_text(timedelta(seconds=45)) == "45秒"
    assert duration_text(timedelta(minutes=65)) == "1時間5分"
    assert duration_text(timedelta(days=2, hours=3)) == "2日3時間"
    assert duration_text(timedelta(minutes=65), ENGLISH_UNITS) == "1 h 5 min"
    assert duration_text(timedelta(days=2), ENGLISH_UNITS) == "2 d"
