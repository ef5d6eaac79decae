"""What a run is about: the request, its handler and prompt inputs, its state, Stop, and the
optional planning round's intent tags (stripped from streamed text and history)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from typing import Any, Literal, TypeVar
from zoneinfo import ZoneInfo

from bot.agent.conversation import messages as m
from bot.agent.conversation.fences import Untrusted
from bot.agent.conversation.history import conversation_key, shared_conversation_key
from bot.agent.llm.client import Usage
from bot.i18n import Language
from bot.storage.agent import ApprovalRequest

T = TypeVar("T")

# Characters of each quoted message that join the text handlers search with.
QUOTE_CHARS_FOR_TOPIC = 500


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


def topic_text(user: m.UserMessage | None) -> str:
    """The member's words plus the start of what they quoted (what handlers search with):
    what a member replies to often says more about the topic than "これ本当？"."""
    if user is None:
        return ""
    return " ".join([user.text, *(q.text[:QUOTE_CHARS_FOR_TOPIC] for q in user.quotes)])


@dataclass(frozen=True)
class Prompt:
    """A run's system prompt in two parts, laid out for the providers' prefix caches.

    `stable` (persona, rules, instructions; what changes at most once a day) opens the request,
    so with the tools and the history it is the same from one message to the next; `context`
    (the time, the member's name, excerpts and notes that match the message) changes with every
    message and follows the member's latest message.
    """

    stable: str
    context: str = ""


def laid_out(prompt: Prompt, conversation: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A round's messages: the stable part, the conversation, and the context right after the
    member's latest message.

    Placed there, the context keeps everything before it the same from one message to the next
    (the stored history never holds it), and a turn's later rounds (tool results) extend the
    request of its first round instead of changing it.
    """
    messages: list[dict[str, Any]] = [{"role": "system", "content": prompt.stable}]
    messages += conversation
    if prompt.context:
        latest = max(
            (i for i, message in enumerate(messages) if message.get("role") == "user"),
            default=len(messages) - 1,
        )
        messages.insert(latest + 1, {"role": "system", "content": prompt.context})
    return messages


@dataclass(frozen=True)
class Handler:
    """A way of answering: its system prompt and the tools it offers."""

    name: str
    instructions: Callable[[PromptInput], Awaitable[Prompt]]
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
    # A run limited to these tools of its handler (an unattended run offers only the tools
    # named when it was set up); None: every tool of the handler.
    only_tools: tuple[str, ...] | None = None
    # The member's roles in the server and whether they manage it (what a tool may allow).
    role_ids: tuple[int, ...] = ()
    manages_server: bool = False
    # What the run's model calls count as in usage (None: the handler's name).
    purpose: str | None = None
    # Nobody watches the run (started on a schedule, not by a message): every call that acts
    # waits for a person's click, whatever always-allow grants or the server's auto-approval say.
    unattended: bool = False

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
        role_ids: tuple[int, ...] = (),
        manages_server: bool = False,
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
            role_ids=role_ids,
            manages_server=manages_server,
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
        if values.get("only_tools") is not None:
            values["only_tools"] = tuple(values["only_tools"])
        values["role_ids"] = tuple(values.get("role_ids") or ())
        return cls(**values)

    @classmethod
    def of_approval(cls, row: ApprovalRequest, timezone: ZoneInfo) -> RunRequest:
        """The run request an approval row kept; a row from before it kept one is rebuilt from
        its columns (a member without admin rights, in Japanese, in timezone)."""
        if row.run_request:
            return cls.from_json(row.run_request)
        return cls(
            user_id=row.requester_id,
            user_name=row.requester_name,
            channel_id=row.channel_id,
            guild_id=row.guild_id,
            conversation_key=row.conversation_key,
            handler=row.handler,
            timezone=timezone,
            origin_message_id=row.origin_message_id,
        )

    def narrowed(self, handler: Handler) -> Handler:
        """handler with only the tools this run may use."""
        if self.only_tools is None:
            return handler
        return replace(handler, tools=tuple(t for t in handler.tools if t in self.only_tools))


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
    system_prompt: Prompt | None = None
    # The context for the next model round when already known (a new message: the history
    # read before it plus the message), so the round needs no read of its own.
    context: list[m.Message] | None = None
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


# The optional planning round's intent tags.

NO_TOOL = "<no_tool>"
NEED_TOOL = "<need_tool>"
TAGS = (NO_TOOL, NEED_TOOL)
# Appended after the planning answer when tools follow, so the next round is the model's turn.
CONTINUE = "[continue]"

PLANNING_PROMPT = (
    "Before using any tool, answer the user briefly in their language. If answering fully "
    f"needs a tool (reminders, weather, search...), end your reply with {NEED_TOOL}; "
    f"otherwise give your full answer and end it with {NO_TOOL}. Write exactly one of the "
    "two tags, at the very end."
)


def strip_tags(text: str) -> str:
    """The text without any intent tag."""
    for tag in TAGS:
        text = text.replace(tag, "")
    return text.rstrip()


def intent(text: str) -> bool | None:
    """True when the model asked for tools, False when not, None when it wrote no tag."""
    need = text.rfind(NEED_TOOL)
    no = text.rfind(NO_TOOL)
    if need == no == -1:
        return None
    return need > no


class TagFilter:
    """Streams text through, holding back anything that could be the start of a tag."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, chunk: str) -> str:
        """Return the part of chunk that is certainly not inside a tag."""
        text = self._held + chunk
        for tag in TAGS:
            text = text.replace(tag, "")
        cut = text.rfind("<")
        if cut != -1 and any(tag.startswith(text[cut:]) for tag in TAGS):
            self._held = text[cut:]
            return text[:cut]
        self._held = ""
        return text

    def flush(self) -> str:
        """Whatever was held back at the end of the stream (not a tag after all)."""
        held, self._held = self._held, ""
        return "" if held in TAGS else held
