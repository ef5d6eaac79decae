"""The reminder sender as operators watch it: deliveries, their lateness, reminders given up on."""

from __future__ import annotations

from typing import Any

from bot.reminders.delivery.sender import REMIND, ReminderDelivery, ReminderSender
from bot.runtime.clock import Clock
from bot.runtime.metrics import Metrics
from bot.runtime.shards import ShardPlan


class MeteredReminders:
    """The reminder sender, counting deliveries, their lateness and reminders given up on."""

    def __init__(self, sender: Any, metrics: Metrics, shards: ShardPlan, clock: Clock) -> None:
        self._sender: ReminderSender = sender
        self._notify_owner = sender.notify_owner
        self._metrics = metrics
        self._shards = shards
        self._clock = clock

    async def send(self, delivery: ReminderDelivery) -> int:
        """Send, then count it with how late it was."""
        message_id = await self._sender.send(delivery)
        if delivery.step != REMIND:
            return message_id  # a consent request or its expiry is not a delivery
        lateness = (self._clock.now() - delivery.due_at).total_seconds()
        self._metrics.reminder_delivered(
            self._shards.shard_of(delivery.guild_id), lateness, late=delivery.late_by is not None
        )
        return message_id

    async def notify_owner(self, delivery: ReminderDelivery, reason: str) -> None:
        """Count a reminder that failed for good, then tell its owner."""
        self._metrics.reminder_failed(self._shards.shard_of(delivery.guild_id))
        await self._notify_owner(delivery, reason)
