"""What a run is about: the request, its handler and prompt inputs, its state, and Stop."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Literal, TypeVar
from zoneinfo import ZoneInfo

from bot.agent.conversation.fences import Untrusted
from bot.agent.conversation.history import conversation_key, shared_conversation_key
from bot.agent.llm.client import Usage
from bot.i18n import Language
from bot.storage.agent import ApprovalRequest

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
    # Filled by the sections: where the untrusted words they put in the prompt come from.
    untrusted: set[Untrusted] = field(default_factory=set)


@dataclass(frozen=True)
class Handler:
    """A way of answering: its system prompt and the tools it offers."""

    name: str
    instructions: Callable[[PromptInput], Awaitable[str]]
    tools: tuple[str, ...] = ()


@dataclass(frozen=True)
class RunRequest:
    """Who asked, where, and which handler answers.

    The one description of a run: a mention, the console and a resume after an approval all
    carry it whole (an approval row stores it as JSON), so no field is lost on the way.
    """

    user_id: int
    user_name: str
    channel_id: int
    guild_id: int | None
    conversation_key: str
    handler: str
    timezone: ZoneInfo
    origin_message_id: int | None = None
    is_admin: bool = False
    # The language the member wrote in: the run's sentences (failures, notices) use it.
    language: Language = "ja"
    # Set in a thread the bot opened: the thread is one conversation, its members speakers.
    shared: bool = False

    @classmethod
    def for_message(
        cls,
        *,
        user_id: int,
        user_name: str,
        channel_id: int,
        guild_id: int | None,
        handler: str,
        timezone: ZoneInfo,
        origin_message_id: int | None = None,
        is_admin: bool = False,
        language: Language = "ja",
        shared: bool = False,
    ) -> RunRequest:
        """The request of a member's message (a mention or a console line), in the member's
        conversation in that channel."""
        return cls(
            user_id=user_id,
            user_name=user_name,
            channel_id=channel_id,
            guild_id=guild_id,
            conversation_key=(
                shared_conversation_key(channel_id)
                if shared
                else conversation_key(channel_id, user_id)
            ),
            handler=handler,
            timezone=timezone,
            origin_message_id=origin_message_id,
            is_admin=is_admin,
            language=language,
            shared=shared,
        )

    def to_json(self) -> str:
        """The request as JSON, for the approval row."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["timezone"] = self.timezone.key
        return json.dumps(data, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> RunRequest:
        """The request an approval row stored."""
        data = json.loads(text)
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        values["timezone"] = ZoneInfo(values["timezone"])
        return cls(**values)


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
    # Decided approvals this run claimed (a resume), by call id and by row id.
    decided: dict[str, ApprovalRequest] = field(default_factory=dict)
    claimed: set[int] = field(default_factory=set)
    # The handler's system prompt, built once per run.
    system_prompt: str | None = None
    # Untrusted words the run has read beyond its history: the prompt's sections (notes,
    # saved web pages), and what the approval row it resumes from had read.
    untrusted: set[Untrusted] = field(default_factory=set)


# Who ended a run early: the member (or an approver) with Stop, or the bot shutting down.
StopReason = Literal["member", "shutdown"]


class StopSignal(asyncio.Event):
    """A run's Stop: an event that also says who set it."""

    def __init__(self) -> None:
        super().__init__()
        self.reason: StopReason = "member"

    def request(self, reason: StopReason = "member") -> None:
        """Stop the run; the first reason given is the one the run reports."""
        if not self.is_set():
            self.reason = reason
        self.set()


def stop_reason(stop: asyncio.Event) -> StopReason:
    """Why stop was set (a plain event is the member's Stop)."""
    return stop.reason if isinstance(stop, StopSignal) else "member"


class Stopped(Exception):
    """The run was stopped (see stop_reason) while we were waiting on something."""


async def race(awaitable: Awaitable[T], stop: asyncio.Event) -> T:
    """Await awaitable unless stop is set first (then cancel it and raise Stopped).

    Cancelled itself (a shutdown that could not wait), it cancels the work before it lets the
    cancellation through: work left running would still hold what it awaits (an async
    generator's step, a tool's connection) while the caller cleans up.
    """
    if stop.is_set():
        if asyncio.iscoroutine(awaitable):
            awaitable.close()
        raise Stopped
    work = asyncio.ensure_future(awaitable)
    stopper = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({work, stopper}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        await _cancelled(work)
        raise
    finally:
        stopper.cancel()
    if work.done():
        return work.result()
    await _cancelled(work)
    raise Stopped


async def _cancelled(work: asyncio.Future[T]) -> None:
    """Cancel work and wait until it has ended, whatever it ends with."""
    work.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await work
