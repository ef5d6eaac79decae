"""The event loop never waits on CPU: the one worker thread for CPU-bound text work (janome), and
a watchdog for event-loop steps that run too long (heartbeats, clicks and reminders wait).

The watchdog is enabled by LOOP_SLOW_STEP_MS. Every callback the loop runs (a task step, a
timer) is timed on the loop's thread; a step that keeps the thread busy longer than the
threshold is logged and, after start-up, kept so the end-to-end tests can fail on it. Busy time
is the thread's CPU time, so a machine loaded by other processes does not turn a quick step into
a slow one; the wall time is reported alongside.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
import time
from asyncio import events
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

_executor: ThreadPoolExecutor | None = None


def text_executor() -> ThreadPoolExecutor:
    """The process's single worker thread for tokenising.

    One thread means one janome tokenizer (~75 MB) for the whole process, and it leaves the
    other core to the event loop.
    """
    global _executor
    if _executor is None:
        _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="text-worker")
    return _executor


async def in_worker(function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Run function on the text worker thread and await its result."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(text_executor(), functools.partial(function, *args, **kwargs))


# The watchdog.

log = logging.getLogger(__name__)

_original_run: Callable[[events.Handle], None] = events.Handle._run
_watches: dict[asyncio.AbstractEventLoop, SlowStepWatch] = {}


def _describe(handle: events.Handle) -> str:
    callback: Any = getattr(handle, "_callback", None)
    owner = getattr(callback, "__self__", None)
    # A task step says which coroutine ran, and where it stopped.
    return repr(owner) if isinstance(owner, asyncio.Task) else repr(handle)


def _timed_run(handle: events.Handle) -> None:
    loop: asyncio.AbstractEventLoop | None = getattr(handle, "_loop", None)
    watch = _watches.get(loop) if _watches and loop is not None else None
    if watch is None or threading.get_ident() != watch.thread_id:
        _original_run(handle)
        return
    wall, busy = time.perf_counter(), time.thread_time()
    try:
        _original_run(handle)
    finally:
        busy = time.thread_time() - busy
        if busy >= watch.threshold:
            watch.report(handle, busy, time.perf_counter() - wall)


class SlowStepWatch:
    """Slow steps of one event loop; those after `arm()` (the end of start-up) are kept."""

    def __init__(self, loop: asyncio.AbstractEventLoop, threshold_ms: int) -> None:
        self.loop = loop
        self.thread_id = threading.get_ident()
        self.threshold = threshold_ms / 1000
        self.armed = False
        self.slow_steps: list[str] = []

    def report(self, handle: events.Handle, busy: float, wall: float) -> None:
        """Log a slow step; keep it when start-up is over."""
        step = f"{_describe(handle)} kept the loop busy {busy * 1000:.0f} ms ({wall * 1000:.0f} ms)"
        log.warning("Slow event-loop step%s: %s", "" if self.armed else " (start-up)", step)
        if self.armed:
            self.slow_steps.append(step)

    def arm(self) -> None:
        """Start-up is over: from now on every slow step counts."""
        self.armed = True

    def close(self) -> None:
        """Stop watching this loop."""
        _watches.pop(self.loop, None)
        if not _watches:
            events.Handle._run = _original_run  # type: ignore[method-assign,assignment]


def watch_event_loop(threshold_ms: int) -> SlowStepWatch | None:
    """Time every step of the running loop and report those over threshold_ms (0: off)."""
    if threshold_ms <= 0:
        return None
    loop = asyncio.get_running_loop()
    watch = SlowStepWatch(loop, threshold_ms)
    _watches[loop] = watch
    events.Handle._run = _timed_run  # type: ignore[method-assign,assignment]
    return watch
