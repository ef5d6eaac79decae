"""The delivery engine of the bot: due reminders posted through the Discord client."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import discord
from apscheduler.schedulers.base import BaseScheduler

from bot.reminders.delivery.due_times import DueTimes
from bot.reminders.delivery.engine import DeliveryEngine
from bot.reminders.delivery.metered import MeteredReminders
from bot.reminders.delivery.scope import DISCORD_REMINDERS
from bot.reminders.discord_part.sender import DiscordReminderSender
from bot.runtime.clock import Clock, SystemClock
from bot.runtime.metrics import Metrics
from bot.servers.directory import ServerDirectory
from bot.settings import Settings
from bot.storage import Database


def discord_delivery(
    client: discord.Client,
    *,
    settings: Settings,
    clock: Clock,
    database: Database,
    scheduler: BaseScheduler,
    metrics: Metrics,
    servers: ServerDirectory,
    due_times: DueTimes,
) -> DeliveryEngine:
    """The engine posting this process's reminders through client, counted in the metrics,
    woken by every new or moved due time."""
    shards = settings.shard_plan
    sender = MeteredReminders(DiscordReminderSender(client, servers), metrics, shards, clock)
    engine = DeliveryEngine(
        database.sessions,
        clock,
        scheduler,
        sender,
        sender.notify_owner,
        shards=shards,
        identity=shards.identity(),
        # Leases compare instants across processes: on the real clock, use the database's.
        database_time=isinstance(clock, SystemClock),
        scope=DISCORD_REMINDERS,
        health=database.health,
    )
    due_times.listen(engine.notify_changed)
    return engine


def due_gauge(metrics: Metrics) -> Callable[[DeliveryEngine], Awaitable[None]]:
    """Set the gauge of reminders due now and not yet delivered (read at each scrape)."""

    async def refresh(engine: DeliveryEngine) -> None:
        metrics.reminders_due.set(await engine.due_now())

    return refresh
