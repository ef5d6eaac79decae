"""Which reminders a delivery engine delivers: the Discord bot's, or the console's own."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import ColumnElement, and_, true

from bot.storage.reminders import Reminder

# Console mode's channel (and user): not a Discord snowflake, so never a real channel.
CONSOLE_CHANNEL_ID = 1


@dataclass(frozen=True)
class ReminderScope:
    """Reminders of these channels only (`only`), and never of `excluding`."""

    only: frozenset[int] | None = None
    excluding: frozenset[int] = frozenset()

    def condition(self) -> ColumnElement[bool]:
        """The WHERE clause that keeps a query to this scope."""
        clauses: list[ColumnElement[bool]] = []
        if self.only is not None:
            clauses.append(Reminder.channel_id.in_(sorted(self.only)))
        if self.excluding:
            clauses.append(Reminder.channel_id.not_in(sorted(self.excluding)))
        return and_(true(), *clauses)


# The bot posts every reminder but the console's; a console sharing its database prints those.
DISCORD_REMINDERS = ReminderScope(excluding=frozenset({CONSOLE_CHANNEL_ID}))
CONSOLE_REMINDERS = ReminderScope(only=frozenset({CONSOLE_CHANNEL_ID}))
