"""Values read from the database, kept in memory for a few seconds.

A mention reads several small things before its model call (the server's model, its topics,
its last tips, its notebook's state). Kept here while fresh, they cost no database round
trip: a change made in this process is seen at once (its writer forgets the entry), one made
by another process within `seconds` (SERVER_SETTINGS_REFRESH_SECONDS, as for server settings).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

# Entries kept at most (servers, usually); the least recently used one goes first.
DEFAULT_SIZE = 1024


class FreshFor(Generic[K, V]):
    """A small map of loaded values that are reloaded once older than `seconds`."""

    def __init__(
        self,
        seconds: float,
        *,
        size: int = DEFAULT_SIZE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.seconds = seconds
        self._size = size
        self._clock = clock
        self._entries: OrderedDict[K, tuple[float, V]] = OrderedDict()

    async def get(self, key: K, load: Callable[[], Awaitable[V]]) -> V:
        """The value of key: from memory while fresh, else loaded (and kept)."""
        found = self._entries.get(key)
        now = self._clock()
        if found is not None and now - found[0] < self.seconds:
            self._entries.move_to_end(key)
            return found[1]
        value = await load()
        self.put(key, value, at=now)
        return value

    def put(self, key: K, value: V, *, at: float | None = None) -> None:
        """Keep value for key (read at `at`, now by default)."""
        self._entries[key] = (self._clock() if at is None else at, value)
        self._entries.move_to_end(key)
        while len(self._entries) > self._size:
            self._entries.popitem(last=False)

    def forget(self, key: K) -> None:
        """The value changed here: the next get reads it again."""
        self._entries.pop(key, None)

    def clear(self) -> None:
        """Forget every value."""
        self._entries.clear()
