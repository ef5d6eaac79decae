"""Per-channel lanes: one channel's sends go in order, channels proceed side by side.

Discord allows about 5 messages per 5 s in a channel, so a burst in one channel queues in its own
lane and never delays another channel's reminder; a semaphore bounds sends across all lanes.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

log = logging.getLogger(__name__)

Item = TypeVar("Item")


@dataclass
class _Entry(Generic[Item]):
    key: int
    item: Item
    done: asyncio.Future[None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


class ChannelLanes(Generic[Item]):
    """Runs handle(item) per channel in arrival order, at most max_concurrent at once overall;
    before(channel_id), when given, is awaited ahead of each item (pacing).

    Items are identified by an int key (the reminder id) so one is never queued twice.
    """

    def __init__(
        self,
        handle: Callable[[Item], Awaitable[None]],
        *,
        max_concurrent: int,
        on_idle: Callable[[], None] | None = None,
        before: Callable[[int], Awaitable[None]] | None = None,
    ) -> None:
        self._handle = handle
        self._before = before
        self._slots = asyncio.Semaphore(max_concurrent)
        self._on_idle = on_idle
        self._queues: dict[int, deque[_Entry[Item]]] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._keys: set[int] = set()

    def __len__(self) -> int:
        """Items queued or being handled."""
        return len(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def submit(self, channel_id: int, key: int, item: Item) -> asyncio.Future[None]:
        """Queue item on its channel's lane; the future resolves once it was handled."""
        entry = _Entry(key, item)
        self._keys.add(key)
        self._queues.setdefault(channel_id, deque()).append(entry)
        if channel_id not in self._tasks:
            self._tasks[channel_id] = asyncio.create_task(
                self._run(channel_id), name=f"reminder-lane-{channel_id}"
            )
        return entry.done

    async def drain(self) -> None:
        """Wait until every lane is empty."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks.values()), return_exceptions=True)

    async def stop(self, grace_seconds: float) -> None:
        """Let lanes finish for up to grace_seconds, then cancel what is left."""
        tasks = list(self._tasks.values())
        if not tasks:
            return
        _, late = await asyncio.wait(tasks, timeout=grace_seconds)
        for task in late:
            task.cancel()
        await asyncio.gather(*late, return_exceptions=True)

    async def _run(self, channel_id: int) -> None:
        queue = self._queues[channel_id]
        try:
            while queue:
                entry = queue.popleft()
                try:
                    if self._before is not None:
                        # Waiting for the channel's turn holds no slot: other channels go on.
                        await self._before(channel_id)
                    async with self._slots:
                        await self._handle(entry.item)
                except Exception:
                    log.exception("lane %s: handling item %s failed", channel_id, entry.key)
                finally:
                    self._finish(entry)
        finally:
            for entry in queue:
                self._finish(entry, cancelled=True)
            del self._tasks[channel_id], self._queues[channel_id]
            if self._on_idle is not None:
                self._on_idle()

    def _finish(self, entry: _Entry[Item], *, cancelled: bool = False) -> None:
        self._keys.discard(entry.key)
        if entry.done.done():
            return
        if cancelled:
            entry.done.cancel()
        else:
            entry.done.set_result(None)
