"""A fake Discord for the delivery engine: records posts, drops repeated nonces, fails on cue."""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter, defaultdict

from bot.reminders.delivery.sender import ReminderDelivery


class FakeSender:
    """Implements ReminderSender; like Discord, a repeated nonce returns the first message."""

    def __init__(self, *, first_message_id: int = 800_000) -> None:
        self.calls: list[ReminderDelivery] = []
        self.posted: list[ReminderDelivery] = []
        self._by_nonce: dict[str, int] = {}
        self._ids = itertools.count(first_message_id)
        # Exceptions to raise, in order, for a reminder id.
        self.failures: dict[int, list[Exception]] = defaultdict(list)
        # A channel whose sends wait until its gate opens (a rate-limited channel).
        self.gates: dict[int, asyncio.Event] = {}
        self.posted_events: dict[int, asyncio.Event] = defaultdict(asyncio.Event)
        self.called = asyncio.Event()

    async def send(self, delivery: ReminderDelivery) -> int:
        """Post delivery, or raise the next scripted failure."""
        self.calls.append(delivery)
        self.called.set()
        gate = self.gates.get(delivery.channel_id)
        if gate is not None:
            await gate.wait()
        if self.failures[delivery.reminder_id]:
            raise self.failures[delivery.reminder_id].pop(0)
        if delivery.nonce in self._by_nonce:
            return self._by_nonce[delivery.nonce]
        message_id = next(self._ids)
        self._by_nonce[delivery.nonce] = message_id
        self.posted.append(delivery)
        self.posted_events[delivery.reminder_id].set()
        return message_id

    def posts_per_reminder(self) -> Counter[int]:
        """How many messages each reminder produced."""
        return Counter(d.reminder_id for d in self.posted)


class FailureInbox:
    """Records notify_owner_failure calls."""

    def __init__(self) -> None:
        self.notices: list[tuple[ReminderDelivery, str]] = []

    async def __call__(self, delivery: ReminderDelivery, reason: str) -> None:
        self.notices.append((delivery, reason))
