"""The "a reminder's due time changed" signal, made before whoever listens to it exists."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

DueTimeListener = Callable[[datetime], None]


class DueTimes:
    """Passes each new or moved due time to its listeners (the delivery engine of the process).

    The reminder service is built before the Discord client, and the delivery engine that
    sends through that client after it: the service announces here, the engine listens here.
    """

    def __init__(self) -> None:
        self._listeners: list[DueTimeListener] = []

    def listen(self, listener: DueTimeListener) -> None:
        """Call listener with every due time announced from now on."""
        self._listeners.append(listener)

    def __call__(self, due_at: datetime) -> None:
        """Announce a new or moved due time."""
        for listener in self._listeners:
            listener(due_at)
