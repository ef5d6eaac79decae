"""What is running in this process right now: answers in progress under their typing indicator,
and background tasks."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import discord

from bot.agent.runs import StopReason, StopSignal

log = logging.getLogger(__name__)

# Discord shows "typing…" for about 10 s per request (and clears it when we post): renewing it
# every 8 s keeps it on without a gap through a long tool call.
REFRESH_SECONDS = 8.0


class TypingIndicator:
    """`async with TypingIndicator(channel):` shows typing until the block ends.

    A refused indicator (no permission, a deleted channel) is logged once and given up: it must
    never fail the answer.
    """

    def __init__(self, channel: Any, refresh: float | None = None, *, wait: bool = True) -> None:
        self.channel = channel
        self.refresh = REFRESH_SECONDS if refresh is None else refresh
        # wait=False: the block starts at once, the first request runs beside it (see shown).
        self._wait = wait
        self._task: asyncio.Task[None] | None = None
        self._first: asyncio.Future[bool] | None = None

    async def __aenter__(self) -> TypingIndicator:
        if self._wait:
            if await self._send():
                self._task = asyncio.create_task(self._renew(), name="typing")
            return self
        self._first = asyncio.ensure_future(self._send())
        self._task = asyncio.create_task(self._renew_after_first(), name="typing")
        return self

    async def shown(self) -> None:
        """Wait until the first typing request is done (at once when it was awaited), so a
        message posted next cannot reach Discord before it and be followed by "typing…"."""
        if self._first is not None:
            with contextlib.suppress(Exception):  # a lost indicator never fails the answer
                await asyncio.shield(self._first)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._first is not None and not self._first.done():
            self._first.cancel()

    async def _renew_after_first(self) -> None:
        assert self._first is not None
        try:
            shown = await self._first
        except Exception as exc:
            log.info("Typing indicator failed in channel %s: %s", self.channel.id, exc)
            return
        if shown:
            await self._renew()

    async def _renew(self) -> None:
        while True:
            await asyncio.sleep(self.refresh)
            if not await self._send():
                return

    async def _send(self) -> bool:
        try:
            await self.channel.typing()
        except discord.HTTPException as exc:
            log.info("Typing indicator refused in channel %s: %s", self.channel.id, exc.status)
            return False
        return True


async def typing_during(channel: Any, work: Callable[[TypingIndicator], Awaitable[None]]) -> None:
    """Run work with the typing indicator on in channel; its first request overlaps the work,
    which awaits `indicator.shown()` before it posts."""
    async with TypingIndicator(channel, wait=False) as indicator:
        await work(indicator)


# How long a shutdown lets stopped runs finish their last edits before it cancels them.
SHUTDOWN_GRACE_SECONDS = 5.0


@dataclass
class LiveRun:
    """A run in progress, so Stop can find it and the member's next run can wait for it."""

    run_id: str
    user_id: int
    channel_id: int
    stop: StopSignal = field(default_factory=StopSignal)
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    # The member's previous run in this channel, still going when this one started.
    after: LiveRun | None = None
    # What it queues behind: the member's runs in the channel, or every run of a shared thread.
    queue: tuple[int, int] = (0, 0)

    async def turn(self) -> None:
        """Wait until the member's previous run in this channel has ended: one conversation
        is carried on by one run at a time, in the order the member wrote."""
        if self.after is not None:
            await self.after.ended.wait()
            self.after = None


class LiveRuns:
    """The runs of this process by id; a run is registered for exactly as long as it lasts."""

    def __init__(self) -> None:
        self._runs: dict[str, LiveRun] = {}
        # The newest run of each member in each channel: the one a new run queues behind.
        self._newest: dict[tuple[int, int], LiveRun] = {}
        self.closing = False

    def start(self, user_id: int, channel_id: int, *, shared: bool = False) -> LiveRun:
        """Register a new run, queued behind the member's run in this channel if there is one
        (behind anyone's in a shared thread: its members share one conversation)."""
        key = (0 if shared else user_id, channel_id)
        run = LiveRun(
            secrets.token_hex(6), user_id, channel_id, after=self._newest.get(key), queue=key
        )
        self._runs[run.run_id] = run
        self._newest[key] = run
        return run

    def end(self, run: LiveRun) -> None:
        """The run finished (any way); the member's next run may go."""
        self._runs.pop(run.run_id, None)
        key = run.queue
        if self._newest.get(key) is run:
            del self._newest[key]
        run.ended.set()

    def get(self, run_id: str) -> LiveRun | None:
        """The live run with this id."""
        return self._runs.get(run_id)

    def stop_all(self, reason: StopReason) -> None:
        """Stop every live run (and take no new ones when the bot is shutting down)."""
        if reason == "shutdown":
            self.closing = True
        for run in self._runs.values():
            run.stop.request(reason)


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

    async def close(self, grace: float = 0.0) -> None:
        """Give what is running `grace` seconds to finish, then cancel the rest; pending
        approvals stay pending in the database, so their buttons still work after a restart."""
        if self._tasks and grace > 0:
            await asyncio.wait(list(self._tasks), timeout=grace)
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
