"""Time as an injectable dependency, so schedules and expiries are testable; and values read
from the database, kept in memory while fresh.

A mention reads several small things before its model call (the server's model, its topics,
its last tips, its notebook's state). Kept in a `FreshFor` while fresh, they cost no database
round trip: a change made in this process is seen at once (its writer forgets the entry), one
made by another process within `seconds` (SERVER_SETTINGS_REFRESH_SECONDS, as for server
settings).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from datetime import UTC, datetime, timedelta
from typing import Generic, Protocol, TypeVar


class Clock(Protocol):
    """Anything that tells the current time as an aware UTC datetime."""

    def now(self) -> datetime:
        """The current instant, timezone-aware, in UTC."""
        ...


class SystemClock:
    """The real wall clock."""

    def now(self) -> datetime:
        """The current instant in UTC."""
        return datetime.now(UTC)


class ManualClock:
    """A clock that moves only when told to; used by tests and benchmarks."""

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is None:
            raise ValueError("ManualClock needs an aware datetime")
        self._now = start.astimezone(UTC)

    def now(self) -> datetime:
        """The frozen instant."""
        return self._now

    def advance(self, delta: timedelta) -> datetime:
        """Move forward by delta and return the new instant."""
        self._now += delta
        return self._now

    def set(self, instant: datetime) -> None:
        """Jump to an aware instant."""
        self._now = instant.astimezone(UTC)


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
