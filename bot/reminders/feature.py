"""The reminders feature: its tools in the reminder and general handlers, and its instructions."""

from __future__ import annotations

from bot.agent.runs import PromptInput
from bot.handlers import router
from bot.handlers.builder import AppBuilder
from bot.reminders.instructions import reminder_instructions
from bot.reminders.table import Reminder, ReminderBlock
from bot.reminders.tools import REMINDER_TOOLS, ReminderDeps


async def reminder_section(prompt: PromptInput) -> str:
    """How to phrase reminder times and the coming days, for the reminder handler (the same
    all day: the current time comes with the context)."""
    return reminder_instructions(prompt.local_now, prompt.timezone)


def register(app: AppBuilder, deps: ReminderDeps) -> None:
    """Offer the reminder tools and add the reminder instructions."""
    app.add_tools(REMINDER_TOOLS, offered_in=[router.REMINDER, router.GENERAL])
    app.add_section(reminder_section, handlers=[router.REMINDER])
    app.forget_with_server(Reminder, ReminderBlock)
