"""The reminder handler: its name, the text that opens its prompt, the cues that route to it."""

from __future__ import annotations

from bot.handlers.spec import HandlerSpec
from bot.reminders.cues import REMINDER, REMINDER_CUES

__all__ = ["REMINDER", "REMINDER_HANDLER", "REMINDER_TEXT"]

REMINDER_TEXT = "You manage the member's reminders with your tools."

REMINDER_HANDLER = HandlerSpec(REMINDER, REMINDER_TEXT, REMINDER_CUES)
