"""A repeat rule in words, in Japanese and English, for people."""

from __future__ import annotations

from bot.schedule.repeat import WEEKDAYS, RepeatRule
from bot.schedule.times import WEEKDAY_KANJI, date_text


def summary(rule: RepeatRule) -> str:
    """The rule in short Japanese, such as `毎週 月・木曜 09:00（祝日は休み、10回まで）`."""
    at = f" {rule.at:%H:%M}" if rule.at else ""
    if rule.kind == "daily":
        text = f"毎日{at}"
    elif rule.kind == "weekdays":
        text = f"平日{at}"
    elif rule.kind == "weekly":
        days = "・".join(WEEKDAY_KANJI[WEEKDAYS.index(d)] for d in rule.days_of_week or [])
        text = f"毎週 {days}曜{at}" if days else f"毎週{at}"
    elif rule.kind == "monthly":
        text = f"毎月 {rule.day_of_month}日{at}" if rule.day_of_month else f"毎月{at}"
    elif rule.kind == "every_minutes":
        text = f"{rule.interval}分ごと"
    elif rule.kind == "every_hours":
        text = f"{rule.interval}時間ごと"
    else:
        text = f"{rule.interval}日ごと{at}" if rule.interval > 1 else f"毎日{at}"
    notes: list[str] = []
    if rule.kind == "monthly" and (rule.day_of_month or 0) >= 29:
        notes.append("その日がない月は末日")
    if rule.skip_holidays:
        notes.append("祝日は休み")
    if rule.count is not None:
        notes.append(f"{rule.count}回まで")
    if rule.until is not None:
        notes.append(f"{date_text(rule.until)}まで")
    return f"{text}（{'、'.join(notes)}）" if notes else text


_WEEKDAY_NAMES = {
    "mon": "Monday",
    "tue": "Tuesday",
    "wed": "Wednesday",
    "thu": "Thursday",
    "fri": "Friday",
    "sat": "Saturday",
    "sun": "Sunday",
}


def summary_en(rule: RepeatRule) -> str:
    """The rule in short English, such as `every week on Monday and Thursday at 09:00`."""
    at = f" at {rule.at:%H:%M}" if rule.at else ""
    if rule.kind == "daily":
        text = f"every day{at}"
    elif rule.kind == "weekdays":
        text = f"every weekday{at}"
    elif rule.kind == "weekly":
        days = " and ".join(_WEEKDAY_NAMES[d] for d in rule.days_of_week or [])
        text = f"every week on {days}{at}" if days else f"every week{at}"
    elif rule.kind == "monthly":
        text = (
            f"every month on day {rule.day_of_month}{at}"
            if rule.day_of_month
            else (f"every month{at}")
        )
    elif rule.kind == "every_minutes":
        text = f"every {rule.interval} minutes"
    elif rule.kind == "every_hours":
        text = f"every {rule.interval} hours"
    else:
        text = f"every {rule.interval} days{at}" if rule.interval > 1 else f"every day{at}"
    notes: list[str] = []
    if rule.kind == "monthly" and (rule.day_of_month or 0) >= 29:
        notes.append("the last day in shorter months")
    if rule.skip_holidays:
        notes.append("not on public holidays")
    if rule.count is not None:
        notes.append(f"{rule.count} times at most")
    if rule.until is not None:
        notes.append(f"until {rule.until.isoformat()}")
    return f"{text} ({', '.join(notes)})" if notes else text
