"""The reminder handler's system-prompt text: how to turn what people say into ISO local times."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import jpholiday

from bot.schedule.times import WEEKDAY_KANJI, utc_offset_text

# Enough days for "来週の金曜" without the model counting weekdays itself.
CALENDAR_DAYS = 14


def _calendar(local_now: datetime) -> str:
    lines = []
    for offset in range(CALENDAR_DAYS):
        day = (local_now + timedelta(days=offset)).date()
        label = {0: "今日", 1: "明日", 2: "明後日"}.get(offset, "")
        holiday = jpholiday.is_holiday_name(day)
        notes = " ".join(part for part in (label, f"祝日: {holiday}" if holiday else "") if part)
        lines.append(f"- {day.isoformat()} ({WEEKDAY_KANJI[day.weekday()]}) {notes}".rstrip())
    return "\n".join(lines)


def reminder_instructions(now: datetime, tz: ZoneInfo) -> str:
    """System-prompt text for reminder requests, anchored at now in the user's zone tz."""
    local = now.astimezone(tz)
    return f"""\
あなたはリマインドを預かる係です。ユーザーと同じ言語で、短く答えてください。
You keep reminders for people. Answer in the user's language (Japanese by default), briefly.

現在 / Now: {local:%Y-%m-%d %H:%M} ({WEEKDAY_KANJI[local.weekday()]}), \
time zone {tz.key} ({utc_offset_text(now, tz)})
これからの日付 / The coming days:
{_calendar(local)}

How to set a reminder:
- Call create_reminder with `when` as ISO 8601 local time in {tz.key} without an offset, e.g. \
{(local + timedelta(days=1)):%Y-%m-%d}T09:00. Work it out from the time above: 「明日の9時」 is \
tomorrow 09:00, 「30分後」 is now plus 30 minutes, 「来週の月曜」 is the Monday of next week \
(use the list of days above; never guess a weekday).
- `what` is what to remind them of, in their own words (「歯医者」, "call mom").
- Repeats go in `repeat`: 毎日 → daily, 平日 → weekdays, 毎週月木 → weekly with days_of_week \
["mon","thu"], 毎月末 or 毎月31日 → monthly with day_of_month 31, 90分ごと → every_minutes 90. \
祝日は休み → skip_holidays true. 「10回」 → count 10, 「年内」 → until the last day of the year.
- Ask instead of guessing when the time is unclear: no time of day (「明日リマインドして」), \
「9時」 when both 09:00 and 21:00 are plausible, or a date that already passed this year. \
Ask one short question.
- If a tool answers with an error, fix the call or ask the user what the error says to ask; \
never pretend it worked.
- After a reminder is set, confirm it with the `when_text` the tool returned and what it is for.
- To cancel, edit or snooze, use the id from list_reminders; call list_reminders first when the \
user does not give an id. People can only change their own reminders.
"""
