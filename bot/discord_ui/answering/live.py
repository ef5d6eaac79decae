"""What is running in this process right now: answers in progress and background tasks."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any


@dataclass
class LiveRun:
    """A run in progress, so Stop and the one-run-per-member rule can find it."""

    run_id: str
    user_id: int
    channel_id: int
    stop: asyncio.Event = field(default_factory=asyncio.Event)


class LiveRuns:
    """The runs of this process by id; a run is registered for exactly as long as it lasts."""

    def __init__(self) -> None:
        self._runs: dict[str, LiveRun] = {}

    def start(self, user_id: int, channel_id: int) -> LiveRun:
        """Register a new run."""
        run = LiveRun(secrets.token_hex(6), user_id, channel_id)
        self._runs[run.run_id] = run
        return run

    def end(self, run: LiveRun) -> None:
        """The run finished (any way)."""
        self._runs.pop(run.run_id, None)

    def get(self, run_id: str) -> LiveRun | None:
        """The live run with this id."""
        return self._runs.get(run_id)

    def busy(self, user_id: int, channel_id: int) -> bool:
        """Whether the member already has a run in this channel."""
        return any(r.user_id == user_id and r.channel_id == channel_id for r in self._runs.values())


class BackgroundTasks:
    """Tasks started for answers, decisions and resumes; shutdown waits for or cancels them."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def spawn(self, work: Coroutine[Any, Any, None], name: str) -> None:
        """Run work in the background, keeping a reference so shutdown can cancel it."""
        task = asyncio.create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def wait_idle(self) -> None:
        """Wait until nothing is being worked on (used at shutdown and by tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def close(self) -> None:
        """Cancel what is still running; pending approvals stay pending in the database, so
        their buttons still work after a restart."""
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
