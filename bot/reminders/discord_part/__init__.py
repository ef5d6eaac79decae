"""The reminders feature's Discord part: /remind and /timezone, the buttons under delivered
reminders and requests, the delivery engine posting due reminders, and the message action."""

from __future__ import annotations

from typing import Protocol

import discord

from bot.discord_ui.builder import DiscordBuilder
from bot.reminders.button_actions import ReminderButtons
from bot.reminders.consent import ConsentButtons
from bot.reminders.delivery.due_times import DueTimes
from bot.reminders.discord_part.buttons import (
    CLICKS,
    ConsentButton,
    ReminderActions,
    ReminderButton,
)
from bot.reminders.discord_part.commands import ReminderCommands
from bot.reminders.discord_part.delivery import discord_delivery, due_gauge
from bot.reminders.discord_part.message_action import add_message_action
from bot.reminders.discord_part.recipients import DiscordRecipients
from bot.reminders.looks import ReminderDeps


class ReminderDiscordDeps(ReminderDeps, Protocol):
    """What the reminders' Discord part needs of the bot's dependencies."""

    @property
    def reminder_buttons(self) -> ReminderButtons:
        """Snooze and Done under a delivered reminder."""
        ...

    @property
    def reminder_consent(self) -> ConsentButtons:
        """Accept, Decline and Stop all under a request to remind another member."""
        ...

    @property
    def due_times(self) -> DueTimes:
        """Where the reminder service announces new and moved due times."""
        ...


def register(app: DiscordBuilder, deps: ReminderDiscordDeps) -> None:
    """/remind and /timezone, the buttons under delivered reminders and under requests to
    remind another member, the delivery engine, and the message action "Remind me about this"."""
    now = app.clock.now

    def commands(client: discord.Client) -> ReminderCommands:
        # Made with the client: reminders for other members look them up through it.
        deps.reminder_recipients.attach(DiscordRecipients(client))
        return ReminderCommands(deps.reminders, app.preferences, now, deps.reminder_consent.records)

    app.add_commands(commands)
    app.add_buttons(
        ReminderButton,
        ConsentButton,
        clicks=(
            CLICKS,
            ReminderActions(deps.reminder_buttons, app.preferences, now, deps.reminder_consent),
        ),
    )
    add_message_action(app, deps.reminders)
    database, scheduler, metrics = app.database, app.scheduler, app.metrics
    if database is not None and scheduler is not None and metrics is not None:
        app.run_while_connected(
            "reminders",
            lambda client: discord_delivery(
                client,
                settings=app.settings,
                clock=app.clock,
                database=database,
                scheduler=scheduler,
                metrics=metrics,
                servers=app.servers,
                due_times=deps.due_times,
            ),
            gauges=due_gauge(metrics),
        )
