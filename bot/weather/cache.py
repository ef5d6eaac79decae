"""A small time-to-live cache read through an injected clock, so expiry is testable."""

from __future__ import annotations

from collections import OrderedDict
from datetime import datetime, timedelta
from typing import Generic, TypeVar

from bot.runtime.clock import Clock

K = TypeVar("K")
V = TypeVar("V")


class TtlCache(Generic[K, V]):
    """Keeps up to max_entries values for ttl each; the oldest entry leaves first when full."""

    def __init__(self, clock: Clock, ttl: timedelta, max_entries: int = 256) -> None:
        self._clock = clock
        self._ttl = ttl
        self._max_entries = max_entries
        self._entries: OrderedDict[K, tuple[datetime, V]] = OrderedDict()

    def get(self, key: K) -> V | None:
        """The value stored under key if it has not expired."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        expires_at, value = entry
        if self._clock.now() >= expires_at:
            del self._entries[key]
            return None
        return value

    def put(self, key: K, value: V) -> None:
        """Store value under key from now for ttl."""
        self._entries.pop(key, None)
        self._entries[key] = (self._clock.now() + self._ttl, value)
        while len(self._entries) > self._max_entries:
            self._entries.popitem(last=False)

    def clear(self) -> None:
        """Forget everything."""
        self._entries.clear()
