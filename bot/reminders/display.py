"""How a reminder is shown: to people in their zone and language (its repeat in words), to the
model as a small JSON dict."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from bot.reminders.repeat import WEEKDAYS, RepeatRule, load_rule
from bot.reminders.times import WEEKDAY_KANJI, date_text, local_iso, local_text
from bot.storage.reminders import Reminder


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


@dataclass(frozen=True)
class ReminderView:
    """A reminder as read from the table, with the zone it is shown in."""

    id: int
    user_id: int
    guild_id: int | None
    channel_id: int
    content: str
    due_at: datetime
    state: str
    occurrence: int
    repeat: RepeatRule | None
    tz: ZoneInfo
    origin_message_id: int | None = None
    last_error: str | None = None

    @classmethod
    def of(cls, row: Reminder, tz: ZoneInfo | None = None) -> ReminderView:
        """A view of row, shown in tz (default: the reminder's own zone)."""
        return cls(
            id=row.id,
            user_id=row.user_id,
            guild_id=row.guild_id,
            channel_id=row.channel_id,
            content=row.content,
            due_at=row.due_at,
            state=row.state,
            occurrence=row.occurrence,
            repeat=load_rule(row.repeat),
            tz=tz or ZoneInfo(row.timezone),
            origin_message_id=row.origin_message_id,
            last_error=row.last_error,
        )

    @property
    def when_iso(self) -> str:
        """Due time as local ISO 8601, for the model."""
        return local_iso(self.due_at, self.tz)

    def when_text(self, now: datetime | None = None) -> str:
        """Due time such as `12月1日(火) 09:00`, for people."""
        return local_text(self.due_at, self.tz, now=now)

    @property
    def repeat_text(self) -> str | None:
        """The repeat rule in short Japanese, or None for a one-time reminder."""
        return None if self.repeat is None else summary(self.repeat)

    def to_output(self, now: datetime | None = None) -> dict[str, Any]:
        """The small dict a tool returns to the model."""
        return {
            "id": self.id,
            "when": self.when_iso,
            "when_text": self.when_text(now),
            "what": self.content,
            "repeat": self.repeat_text,
        }


def describe(reminder: Reminder | ReminderView, tz: ZoneInfo, now: datetime | None = None) -> str:
    """One line for people: `#12 12月1日(火) 09:00 「歯医者」（毎日 09:00）`."""
    view = reminder if isinstance(reminder, ReminderView) else ReminderView.of(reminder, tz)
    line = f"#{view.id} {local_text(view.due_at, tz, now=now)} 「{view.content}」"
    return f"{line}（{view.repeat_text}）" if view.repeat_text else line
