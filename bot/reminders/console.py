"""Console mode's reminders: printed on its terminal when they fall due, while it runs."""

from __future__ import annotations

from collections.abc import Callable

from apscheduler.schedulers.base import BaseScheduler
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.reminders.delivery.due_times import DueTimes
from bot.reminders.delivery.engine import DeliveryEngine
from bot.reminders.delivery.scope import CONSOLE_REMINDERS
from bot.reminders.delivery.sender import ReminderDelivery
from bot.runtime.clock import Clock
from bot.storage.outage import DatabaseHealth


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


def terminal_delivery(
    sessions: async_sessionmaker[AsyncSession],
    clock: Clock,
    scheduler: BaseScheduler,
    due_times: DueTimes,
    health: DatabaseHealth,
    announce: Callable[[str], None],
) -> DeliveryEngine:
    """A delivery engine for the console's reminders only, printing through announce."""
    printer = TerminalReminders(announce)
    engine = DeliveryEngine(
        sessions,
        clock,
        scheduler,
        printer,
        printer.notify_owner,
        scope=CONSOLE_REMINDERS,
        job_id="reminders.console",
        health=health,
    )
    due_times.listen(engine.notify_changed)
    return engine
