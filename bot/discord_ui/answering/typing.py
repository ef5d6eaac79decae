"""The typing indicator for the whole of a run, however long its model and tool calls take."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable
from types import TracebackType
from typing import Any

import discord

log = logging.getLogger(__name__)

# Discord shows "typing…" for about 10 s per request (and clears it when we post): renewing it
# every 8 s keeps it on without a gap through a long tool call.
REFRESH_SECONDS = 8.0


class TypingIndicator:
    """`async with TypingIndicator(channel):` shows typing until the block ends.

    A refused indicator (no permission, a deleted channel) is logged once and given up: it must
    never fail the answer.
    """

    def __init__(self, channel: Any, refresh: float | None = None) -> None:
        self.channel = channel
        self.refresh = REFRESH_SECONDS if refresh is None else refresh
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> TypingIndicator:
        if await self._send():
            self._task = asyncio.create_task(self._renew(), name="typing")
        return self

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


async def typing_during(channel: Any, work: Awaitable[None]) -> None:
    """Await work with the typing indicator on in channel."""
    async with TypingIndicator(channel):
        await work
