"""The hot reload: a background task that keeps an index in step with its folder."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from abc import ABC, abstractmethod
from typing import Any

from bot.runtime.background import cancel_and_wait

log = logging.getLogger(__name__)

HOT_RELOAD_SECONDS = 2.0
# When the first search finds the index never started (console mode, a script), how long it
# waits for the first load; a larger knowledge base is then searched while it loads.
FIRST_USE_WAIT_SECONDS = 10.0


class HotReload(ABC):
    """Loads once, then refreshes every few seconds; the index supplies `load` and `refresh`."""

    _ready: asyncio.Event
    _task: asyncio.Task[None] | None

    @property
    def ready(self) -> bool:
        """Whether the first load has finished (searches before it see a partial index)."""
        return self._ready.is_set()

    @abstractmethod
    async def load(self) -> Any:
        """Read the whole folder (start-up)."""

    @abstractmethod
    async def refresh(self) -> Any:
        """Pick up what changed on disk."""

    async def run(self, interval: float = HOT_RELOAD_SECONDS) -> None:
        """Load, then refresh every interval seconds until cancelled (the hot reload)."""
        while True:
            try:
                await (self.refresh() if self.ready else self.load())
            except Exception:  # a bad file or a database hiccup must not stop hot reload
                log.exception("knowledge base refresh failed; retrying in %.0f s", interval)
            await asyncio.sleep(interval)

    def start(self, interval: float = HOT_RELOAD_SECONDS) -> asyncio.Task[None]:
        """Run `run()` as a background task (the bot answers while a cold start tokenises)."""
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self.run(interval), name="knowledge-hot-reload")
        return self._task

    async def ensure_started(self, wait: float = FIRST_USE_WAIT_SECONDS) -> None:
        """Start the hot reload if nothing has (console mode), waiting up to wait s for the load.

        The bot starts the index with its other services and answers from a partial index during
        a cold start, so this returns at once when the index is loaded or loading.
        """
        if self.ready or self._task is not None:
            return
        self.start()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._ready.wait(), wait)

    async def stop(self) -> None:
        """Cancel the background task, if any."""
        await cancel_and_wait(self._task)
        self._task = None
