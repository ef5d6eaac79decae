"""Ending background work: a task cancelled and waited for, so nothing runs after its owner
stopped."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from typing import Any


async def cancel_and_wait(*tasks: asyncio.Task[Any] | None) -> None:
    """Cancel the tasks (None: nothing to end) and wait until each has ended."""
    running = [task for task in tasks if task is not None]
    for task in running:
        task.cancel()
    for task in running:
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def cancel_within(
    tasks: Iterable[asyncio.Task[Any]], seconds: float, *, every: float = 1.0
) -> set[asyncio.Task[Any]]:
    """Cancel the tasks, again every `every` seconds, until each has ended or `seconds` passed;
    the ones still running. For tasks in libraries that may swallow one cancellation (an anyio
    task group closing a subprocess), which a plain await would wait for forever."""
    pending = set(tasks)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while pending and loop.time() < deadline:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=min(every, deadline - loop.time()))
    return pending
