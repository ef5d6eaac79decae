"""Time as an injectable dependency, so schedules and expiries are testable."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol


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
