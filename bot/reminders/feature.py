"""The reminders feature: its tools in the reminder and general handlers, and its instructions."""

from __future__ import annotations

from bot.agent.runs import PromptInput
from bot.handlers import router
from bot.handlers.builder import AppBuilder
from bot.handlers.declarations import Declarations
from bot.handlers.services import Shared
from bot.reminders import table
from bot.reminders.button_actions import ReminderButtons
from bot.reminders.consent import ConsentButtons, ReminderConsent
from bot.reminders.delivery.due_times import DueTimes
from bot.reminders.handler import REMINDER
from bot.reminders.instructions import reminder_instructions
from bot.reminders.recipients import Recipients
from bot.reminders.service import ReminderService
from bot.reminders.table import Reminder, ReminderBlock
from bot.reminders.tools import REMINDER_TOOLS, ReminderDeps


async def reminder_section(prompt: PromptInput) -> str:
    """How to phrase reminder times and the coming days, for the reminder handler (the same
    all day: the current time comes with the context)."""
    return reminder_instructions(prompt.local_now, prompt.timezone)


def register(app: AppBuilder, deps: ReminderDeps) -> None:
    """Offer the reminder tools and add the reminder instructions."""
    app.add_tools(REMINDER_TOOLS, offered_in=[REMINDER, router.GENERAL])
    app.add_section(reminder_section, handlers=[REMINDER])
    app.forget_with_server(Reminder, ReminderBlock)


def services(shared: Shared) -> dict[str, object]:
    """The reminder service, where it announces new due times (each delivery engine listens),
    its buttons, and reminders for other members and channels (the answer, the lookups)."""
    sessions, clock = shared.database.sessions, shared.clock
    due_times = DueTimes()
    reminder_service = ReminderService(sessions, clock, shared.settings, on_change=due_times)
    return {
        "reminders": reminder_service,
        "due_times": due_times,
        "reminder_buttons": ReminderButtons(reminder_service, clock),
        "reminder_consent": ConsentButtons(ReminderConsent(sessions, clock, on_change=due_times)),
        "reminder_recipients": Recipients(),
    }


# What the feature brings to the shared layers: its tables.
DECLARES = Declarations(tables=table)
