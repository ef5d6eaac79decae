"""What the buttons under a delivered reminder do, answered in sentences for the person."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from bot.i18n import Language, Text, moment, replies
from bot.reminders.display import ReminderView
from bot.reminders.errors import (
    InvalidReminder,
    NotReminderOwner,
    ReminderClosed,
    ReminderError,
    ReminderNotFound,
)
from bot.reminders.service import ReminderService
from bot.runtime.clock import Clock

# Offered under every delivered reminder; minutes.
SNOOZE_CHOICES = (10, 60)

_REFUSALS: dict[type[ReminderError], Text] = {
    NotReminderOwner: replies.NOT_REMINDER_OWNER,
    ReminderNotFound: replies.REMINDER_GONE,
    ReminderClosed: replies.REMINDER_CLOSED,
    InvalidReminder: replies.SNOOZE_REFUSED,
}


@dataclass(frozen=True)
class ButtonReply:
    """The outcome of a click: ok or refused, and a sentence for the person who clicked."""

    ok: bool
    message: str
    reminder: ReminderView | None = None


def _refusal(error: ReminderError, language: Language) -> ButtonReply:
    for kind, text in _REFUSALS.items():
        if isinstance(error, kind):
            return ButtonReply(False, text(language))
    return ButtonReply(False, replies.DID_NOT_WORK(language))


def when_said(view: ReminderView, now: datetime, language: Language) -> str:
    """When the reminder comes: in Japanese words, or a Discord timestamp each reader sees in
    their own zone and language."""
    if language == "ja":
        return view.when_text(now)
    return moment(view.due_at)


class ReminderButtons:
    """Snooze and done for the owner of a delivered reminder; anyone else gets a refusal."""

    def __init__(self, service: ReminderService, clock: Clock) -> None:
        self._service = service
        self._clock = clock

    async def snooze(
        self,
        reminder_id: int,
        user_id: int,
        until: datetime | timedelta,
        tz: ZoneInfo,
        language: Language = "ja",
    ) -> ButtonReply:
        """Remind again at until (an instant, or a delay from now)."""
        when = self._clock.now() + until if isinstance(until, timedelta) else until
        try:
            view = await self._service.snooze(reminder_id, user_id, when, tz)
        except ReminderError as error:
            return _refusal(error, language)
        said = replies.SNOOZED(language, when=when_said(view, self._clock.now(), language))
        return ButtonReply(True, said, view)

    async def done(
        self, reminder_id: int, user_id: int, tz: ZoneInfo, language: Language = "ja"
    ) -> ButtonReply:
        """Mark the reminder done; a repeating one says when it comes next."""
        try:
            view = await self._service.done(reminder_id, user_id, tz)
        except ReminderError as error:
            return _refusal(error, language)
        message = replies.MARKED_DONE(language)
        if view.repeat is not None and view.state == "pending":
            next_time = when_said(view, self._clock.now(), language)
            message += replies.NEXT_TIME(language, when=next_time)
        return ButtonReply(True, message, view)
