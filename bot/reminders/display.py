"""How a reminder is shown: to people in their zone and language (its repeat in words), to the
model as a small JSON dict."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from bot.reminders.table import Reminder
from bot.schedule.repeat import RepeatRule, load_rule
from bot.schedule.times import local_iso, local_text
from bot.schedule.words import summary


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
    # A reminder for another member: who, and where their consent stands.
    target_user_id: int | None = None
    consent: str | None = None

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
            target_user_id=row.target_user_id,
            consent=row.consent,
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
            **(
                {}
                if self.target_user_id is None
                else {"for_member_id": self.target_user_id, "consent": self.consent}
            ),
        }


def describe(reminder: Reminder | ReminderView, tz: ZoneInfo, now: datetime | None = None) -> str:
    """One line for people: `#12 12月1日(火) 09:00 「歯医者」（毎日 09:00）`."""
    view = reminder if isinstance(reminder, ReminderView) else ReminderView.of(reminder, tz)
    line = f"#{view.id} {local_text(view.due_at, tz, now=now)} 「{view.content}」"
    return f"{line}（{view.repeat_text}）" if view.repeat_text else line
