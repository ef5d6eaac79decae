"""The reminder handler's system-prompt text: how to turn what people say into ISO local times."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import jpholiday

from bot.schedule.times import WEEKDAY_KANJI, utc_offset_text

# Enough days for "来週の金曜" without the model counting weekdays itself.
CALENDAR_DAYS = 14


def _calendar(local_now: datetime) -> str:
    days = []
    for offset in range(CALENDAR_DAYS):
        day = (local_now + timedelta(days=offset)).date()
        label = {0: "今日", 1: "明日", 2: "明後日"}.get(offset, "")
        holiday = jpholiday.is_holiday_name(day)
        notes = " ".join(part for part in (label, f"祝日:{holiday}" if holiday else "") if part)
        days.append(f"{day.isoformat()}({WEEKDAY_KANJI[day.weekday()]}){notes}")
    return ", ".join(days)


def reminder_instructions(now: datetime, tz: ZoneInfo) -> str:
    """System-prompt text for reminder requests in the user's zone tz.

    It changes only with the date (the coming days are listed), so it belongs to the prompt's
    stable part; the current time comes with the context.
    """
    local = now.astimezone(tz)
    return f"""\
Setting reminders:
- create_reminder's `when` is local ISO 8601 in {tz.key} without an offset, e.g. \
{(local + timedelta(days=1)):%Y-%m-%d}T09:00, worked out from Now (given last) and the \
days below: 「明日の9時」 is tomorrow 09:00, 「30分後」 now plus 30 minutes, 「来週の月曜」 \
the Monday of next week (never guess a weekday). `what` is what to remind of, in their words.
- Repeats: 毎日 daily, 平日 weekdays, 毎週月木 weekly with days_of_week ["mon","thu"], 毎月末 \
or 毎月31日 monthly with day_of_month 31, 90分ごと every_minutes 90; 祝日は休み \
skip_holidays; 「10回」 count 10; 「年内」 until the year's last day.
- 「@hana に…」: for_member "@hana" (they accept first); 「#general に」: to_channel.
- Ask one short question instead of guessing when the time is unclear: no time of day, \
「9時」 when 09:00 and 21:00 both fit, a date already past this year.
- On a tool error, fix the call or ask what it says to ask; never pretend it worked. Once \
set, confirm with the returned `when_text` and what it is for.
- To cancel, edit or snooze, take the id from list_reminders (call it first). Members change \
only their own reminders.

Days ({tz.key}, {utc_offset_text(now, tz)}): {_calendar(local)}
"""
