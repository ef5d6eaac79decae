"""What a run is about: the request, its handler and prompt inputs, its state, and Stop."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TypeVar
from zoneinfo import ZoneInfo

from bot.agent.llm.client import Usage

T = TypeVar("T")


@dataclass(frozen=True)
class PromptInput:
    """What a handler's instructions may depend on."""

    text: str
    user_name: str
    local_now: datetime
    timezone: ZoneInfo
    guild_id: int | None
    channel_id: int


@dataclass(frozen=True)
class Handler:
    """A way of answering: its system prompt and the tools it offers."""

    name: str
    instructions: Callable[[PromptInput], Awaitable[str]]
    tools: tuple[str, ...] = ()


@dataclass(frozen=True)
class RunRequest:
    """Who asked, where, and which handler answers."""

    user_id: int
    user_name: str
    channel_id: int
    guild_id: int | None
    conversation_key: str
    handler: str
    timezone: ZoneInfo
    origin_message_id: int | None = None
    is_admin: bool = False


@dataclass
class RunState:
    """What one run has done so far (usage, steps, its last text)."""

    request: RunRequest
    stop: asyncio.Event
    usage: Usage = field(default_factory=Usage)
    steps: int = 0
    last_text: str = ""
    # The model of the whole run, chosen when it starts (None: the current choice per call).
    model: str | None = None
    # Images of this run's own message (key -> data URL); never stored.
    images: dict[str, str] = field(default_factory=dict)


class Stopped(Exception):
    """The user pressed Stop while we were waiting on something."""


async def race(awaitable: Awaitable[T], stop: asyncio.Event) -> T:
    """Await awaitable unless stop is set first (then cancel it and raise Stopped)."""
    if stop.is_set():
        if asyncio.iscoroutine(awaitable):
            awaitable.close()
        raise Stopped
    work = asyncio.ensure_future(awaitable)
    stopper = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({work, stopper}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopper.cancel()
    if work.done():
        return work.result()
    work.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await work
    raise Stopped
