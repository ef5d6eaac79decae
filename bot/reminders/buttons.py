"""What the buttons under a delivered reminder do, answered in sentences for the person."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

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

_REFUSALS: dict[type[ReminderError], str] = {
    NotReminderOwner: (
        "このボタンはリマインドを頼んだ人だけが使えます。"
        "(Only the person who asked for this reminder can use these buttons.)"
    ),
    ReminderNotFound: "このリマインドはもう見つかりません。(This reminder no longer exists.)",
    ReminderClosed: (
        "このリマインドは取り消されたか、もう変更されています。"
        "(This reminder was cancelled or has changed.)"
    ),
    InvalidReminder: (
        "その時刻には延ばせません。もう一度お試しください。"
        "(I can't snooze it to that time; please try again.)"
    ),
}


@dataclass(frozen=True)
class ButtonReply:
    """The outcome of a click: ok or refused, and a sentence for the person who clicked."""

    ok: bool
    message: str
    reminder: ReminderView | None = None


def _refusal(error: ReminderError) -> ButtonReply:
    for kind, text in _REFUSALS.items():
        if isinstance(error, kind):
            return ButtonReply(False, text)
    return ButtonReply(False, "うまくいきませんでした。(That did not work.)")


class ReminderButtons:
    """Snooze and done for the owner of a delivered reminder; anyone else gets a refusal."""

    def __init__(self, service: ReminderService, clock: Clock) -> None:
        self._service = service
        self._clock = clock

    async def snooze(
        self, reminder_id: int, user_id: int, until: datetime | timedelta, tz: ZoneInfo
    ) -> ButtonReply:
        """Remind again at until (an instant, or a delay from now)."""
        when = self._clock.now() + until if isinstance(until, timedelta) else until
        try:
            view = await self._service.snooze(reminder_id, user_id, when, tz)
        except ReminderError as error:
            return _refusal(error)
        return ButtonReply(
            True, f"⏰ {view.when_text(self._clock.now())} にもう一度お知らせします。", view
        )

    async def done(self, reminder_id: int, user_id: int, tz: ZoneInfo) -> ButtonReply:
        """Mark the reminder done; a repeating one says when it comes next."""
        try:
            view = await self._service.done(reminder_id, user_id, tz)
        except ReminderError as error:
            return _refusal(error)
        message = "✅ 完了にしました。"
        if view.repeat is not None and view.state == "pending":
            message += f"次回は {view.when_text(self._clock.now())} です。"
        return ButtonReply(True, message, view)
