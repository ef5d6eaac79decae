"""Console mode's reminders: printed on its terminal when they fall due, while it runs."""

from __future__ import annotations

from collections.abc import Callable

from bot.app.core import Core
from bot.reminders.delivery.engine import DeliveryEngine
from bot.reminders.delivery.scope import CONSOLE_REMINDERS
from bot.reminders.delivery.sender import ReminderDelivery


class TerminalReminders:
    """The console's reminder sender: a due reminder becomes lines on the terminal."""

    def __init__(self, announce: Callable[[str], None]) -> None:
        self._announce = announce

    async def send(self, delivery: ReminderDelivery) -> int:
        """Print the reminder; there is no message id outside Discord."""
        notes = [f"{delivery.due_text} の予定"]
        if delivery.late_text:
            notes.append(delivery.late_text)
        if delivery.repeat_text:
            notes.append(delivery.repeat_text)
        self._announce(f"⏰ {delivery.content}\n   {' ・ '.join(notes)}\n")
        return 0

    async def notify_owner(self, delivery: ReminderDelivery, reason: str) -> None:
        """A reminder that failed for good (printing hardly fails, but say so if it did)."""
        self._announce(
            f"⚠️ リマインドを届けられません / could not deliver {delivery.content!r}: {reason}\n"
        )


def terminal_delivery(core: Core, announce: Callable[[str], None]) -> DeliveryEngine:
    """A delivery engine for the console's reminders only, printing through announce."""
    printer = TerminalReminders(announce)
    engine = DeliveryEngine(
        core.database.sessions,
        core.clock,
        core.scheduler,
        printer,
        printer.notify_owner,
        scope=CONSOLE_REMINDERS,
        job_id="reminders.console",
        health=core.database.health,
    )
    core.deps.due_times.listen(engine.notify_changed)
    return engine
