"""Which reminders a delivery engine delivers: the Discord bot's or the console's own, and of
the bot's, those of the shards this process runs."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import ColumnElement, and_, literal_column, or_, true

from bot.reminders.table import Reminder
from bot.runtime.shards import DM_SHARD, ShardPlan

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


def owned_by(shards: ShardPlan) -> ColumnElement[bool]:
    """Rows of the guilds (and, on shard 0, the DMs) whose shards this process runs."""
    if shards.runs_every_shard:
        return true()
    # A literal shift: PostgreSQL has bigint >> integer but no bigint >> bigint.
    shard = Reminder.guild_id.op(">>")(literal_column("22")) % shards.count
    guilds = and_(Reminder.guild_id.is_not(None), shard.in_(shards.ids))
    return or_(Reminder.guild_id.is_(None), guilds) if DM_SHARD in shards.ids else guilds
