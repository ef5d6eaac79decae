"""The agent loop: a function of stored history that streams events and gates tool calls."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal, TypeVar
from zoneinfo import ZoneInfo

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.agent import events as ev
from bot.agent import messages as m
from bot.agent import planning
from bot.agent.approvals import ApprovalService, NewApproval, Status, decode_arguments
from bot.agent.history import ConversationStore
from bot.agent.llm import LLMClient, LLMFailure, TextChunk, ToolCallName, Turn, Usage
from bot.agent.tools import (
    Tool,
    ToolContext,
    ToolOutcome,
    ToolRegistry,
    execute,
    parse_arguments,
)
from bot.clock import Clock
from bot.settings import Settings

log = logging.getLogger(__name__)

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
class _RunState:
    request: RunRequest
    stop: asyncio.Event
    usage: Usage = field(default_factory=Usage)
    steps: int = 0
    last_text: str = ""


_Settle = Literal["continue", "rejected", "interrupted"]


class _Stopped(Exception):
    """The user pressed Stop while we were waiting on something."""


async def _race(awaitable: Awaitable[T], stop: asyncio.Event) -> T:
    """Await awaitable unless stop is set first (then cancel it and raise _Stopped)."""
    if stop.is_set():
        if asyncio.iscoroutine(awaitable):
            awaitable.close()
        raise _Stopped
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
    raise _Stopped


class Agent:
    """Runs handlers over the model; every state change is an event and lands in history."""

    def __init__(
        self,
        *,
        settings: Settings,
        clock: Clock,
        sessions: async_sessionmaker[AsyncSession],
        llm: LLMClient,
        registry: ToolRegistry,
        approvals: ApprovalService,
        store: ConversationStore,
        handlers: Mapping[str, Handler],
        services: Mapping[type[Any], Any] | None = None,
    ) -> None:
        self.settings = settings
        self.clock = clock
        self.sessions = sessions
        self.llm = llm
        self.registry = registry
        self.approvals = approvals
        self.store = store
        self.handlers = dict(handlers)
        self.services = dict(services or {})

    async def run(
        self, request: RunRequest, text: str, stop: asyncio.Event | None = None
    ) -> AsyncIterator[ev.AgentEvent]:
        """Answer a new user message: record it, then continue the conversation."""
        state = _RunState(request, stop or asyncio.Event())
        async for event in self._invalidate_leftovers(request):
            yield event
        await self.store.append(
            request.conversation_key,
            m.UserMessage(text=text, author_id=request.user_id, author_name=request.user_name),
        )
        async for event in self._continue(state, plan=self.settings.agent_planning):
            yield event

    async def resume(
        self,
        approval_id: int,
        stop: asyncio.Event | None = None,
        timezone: ZoneInfo | None = None,
    ) -> AsyncIterator[ev.AgentEvent]:
        """Continue a conversation from stored state after a decision no live run was awaiting."""
        row = await self.approvals.get(approval_id)
        if row is None:
            yield ev.Failed("That request no longer exists.", "unknown_approval")
            return
        request = RunRequest(
            user_id=row.requester_id,
            user_name=row.requester_name,
            channel_id=row.channel_id,
            guild_id=row.guild_id,
            conversation_key=row.conversation_key,
            handler=row.handler,
            timezone=timezone or self.settings.timezone,
            origin_message_id=row.origin_message_id,
        )
        state = _RunState(request, stop or asyncio.Event())
        async for event in self._continue(state, plan=False):
            yield event

    # -- the loop ------------------------------------------------------------------------

    async def _continue(self, state: _RunState, *, plan: bool) -> AsyncIterator[ev.AgentEvent]:
        handler = self.handlers.get(state.request.handler) or self.handlers["general"]
        while True:
            outcome: list[_Settle] = []
            async for event in self._settle_tool_calls(state, handler, outcome):
                yield event
            if outcome and outcome[0] != "continue":
                reason: ev.DoneReason = "rejected" if outcome[0] == "rejected" else "interrupted"
                yield ev.Done(state.last_text, reason, state.usage)
                return
            if state.steps >= self.settings.agent_max_steps:
                notice = (
                    f"I stopped after {state.steps} steps without a final answer. "
                    "Ask again more specifically, or split the request."
                )
                await self.store.append(
                    state.request.conversation_key, m.NoticeMessage(text=notice)
                )
                yield ev.Notice(notice)
                yield ev.Done(state.last_text, "max_steps", state.usage)
                return
            planning_round = plan and state.steps == 0
            turn: Turn | None = None
            try:
                async for item in self._model_round(state, handler, planning_round):
                    if isinstance(item, Turn):
                        turn = item
                    else:
                        yield item
            except LLMFailure as failure:
                yield ev.Failed(failure.sentence, failure.kind)
                return
            except _Stopped:
                yield ev.Done(state.last_text, "interrupted", state.usage)
                return
            assert turn is not None
            state.steps += 1
            yield ev.RoundEnd(state.steps)
            if planning_round:
                wants_tools = planning.intent(turn.text)
                if not wants_tools:
                    self._after_answer(state.request)
                    yield ev.Done(state.last_text, "answered", state.usage)
                    return
                continue
            if not turn.tool_calls:
                self._after_answer(state.request)
                yield ev.Done(state.last_text, "answered", state.usage)
                return

    async def _model_round(
        self, state: _RunState, handler: Handler, planning_round: bool
    ) -> AsyncIterator[ev.AgentEvent | Turn]:
        request = state.request
        history = await self.store.context(request.conversation_key)
        system = await handler.instructions(self._prompt_input(request, history))
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
        messages += m.to_llm(history)
        tools: list[dict[str, Any]] | None = None
        if planning_round:
            messages.append({"role": "system", "content": planning.PLANNING_PROMPT})
        else:
            offered = self.registry.select(handler.tools, request.guild_id)
            tools = [t.schema() for t in offered] or None
        tag_filter = planning.TagFilter() if planning_round else None
        text = ""
        turn: Turn | None = None
        stream = self.llm.stream(
            messages, tools, purpose=handler.name, conversation_key=request.conversation_key
        )
        iterator = stream.__aiter__()
        try:
            while True:
                try:
                    item = await _race(iterator.__anext__(), state.stop)
                except StopAsyncIteration:
                    break
                if isinstance(item, TextChunk):
                    piece = tag_filter.feed(item.text) if tag_filter else item.text
                    if piece:
                        text += piece
                        yield ev.TextDelta(piece)
                elif isinstance(item, ToolCallName):
                    yield ev.ToolCallStarted(item.call_id, item.name)
                else:
                    turn = item
        except _Stopped:
            if tag_filter:
                text += tag_filter.flush()
            await self._record_interrupted_text(state, text)
            raise
        finally:
            await stream.aclose()
        if tag_filter:
            tail = tag_filter.flush()
            if tail:
                text += tail
                yield ev.TextDelta(tail)
        assert turn is not None
        state.usage.add(turn.usage)
        clean = planning.strip_tags(text) if planning_round else text
        state.last_text = clean
        tool_calls = [] if planning_round else turn.tool_calls
        if clean or tool_calls:
            await self.store.append(
                request.conversation_key, m.AssistantMessage(text=clean, tool_calls=tool_calls)
            )
        yield turn

    async def _record_interrupted_text(self, state: _RunState, text: str) -> None:
        state.last_text = text
        items: list[m.Message] = []
        if text:
            items.append(m.AssistantMessage(text=text))
        items.append(m.NoticeMessage(text="The user stopped this answer before it finished."))
        await self.store.append(state.request.conversation_key, *items)

    # -- tool calls ----------------------------------------------------------------------

    async def _settle_tool_calls(
        self, state: _RunState, handler: Handler, outcome: list[_Settle]
    ) -> AsyncIterator[ev.AgentEvent]:
        """Gate and run every unanswered call of the last assistant turn, in order."""
        key = state.request.conversation_key
        unanswered = await self._unanswered_calls(key)
        for position, call in enumerate(unanswered):
            tool_item = self.registry.get(call.name)
            if tool_item is None or call.name not in handler.tools:
                available = ", ".join(handler.tools) or "none"
                content = ToolOutcome(
                    f"There is no tool called {call.name!r} here. Available tools: {available}.",
                    is_error=True,
                )
                await self._record_result(key, call, content)
                yield ev.ToolResult(call.id, call.name, None, content.output, True)
                continue
            arguments, problem = parse_arguments(tool_item, call.arguments)
            if arguments is None:
                content = ToolOutcome(problem, is_error=True)
                await self._record_result(key, call, content)
                yield ev.ToolResult(call.id, call.name, None, problem, True)
                continue
            gate: list[Status | str] = []
            async for event in self._gate(state, tool_item, call, arguments, gate):
                yield event
            verdict = gate[0]
            if verdict in (Status.REJECTED, Status.EXPIRED, Status.INVALIDATED):
                async for event in self._end_after_rejection(
                    state, call, arguments, verdict, unanswered[position + 1 :]
                ):
                    yield event
                outcome.append("interrupted" if verdict == Status.INVALIDATED else "rejected")
                return
            approval_id = gate[1] if len(gate) > 1 else None
            assert isinstance(verdict, str)
            yield ev.ToolExecuting(
                call.id,
                call.name,
                arguments,
                approved_by=verdict,  # type: ignore[arg-type]
                approval_id=approval_id if isinstance(approval_id, int) else None,
            )
            ctx = self._tool_context(state.request)
            try:
                result = await _race(execute(tool_item, ctx, arguments), state.stop)
            except _Stopped:
                rejected = m.ToolRejectedMessage(
                    call_id=call.id,
                    name=call.name,
                    reason="interrupted",
                    partial=list(ctx.partial) or None,
                )
                await self.store.append(key, rejected)
                yield ev.ToolRejected(call.id, call.name, arguments, "interrupted")
                for event in await self._invalidate_rest(key, unanswered[position + 1 :]):
                    yield event
                outcome.append("interrupted")
                return
            await self._record_result(key, call, result)
            yield ev.ToolResult(
                call.id,
                call.name,
                arguments,
                result.output,
                result.is_error,
                approval_id if isinstance(approval_id, int) else None,
            )
        outcome.append("continue")

    async def _gate(
        self,
        state: _RunState,
        tool_item: Tool,
        call: m.ToolCall,
        arguments: dict[str, Any],
        verdict: list[Any],
    ) -> AsyncIterator[ev.AgentEvent]:
        """Decide whether the call may run; appends (verdict, approval id) to verdict."""
        request = state.request
        if not tool_item.requires_approval:
            verdict.append("not_needed")
            return
        existing = await self.approvals.find_by_call(request.conversation_key, call.id)
        if existing is None:
            ask, why = await self.approvals.needs_asking(request.user_id, tool_item.name)
            if not ask:
                verdict.append(why)
                return
            existing = await self.approvals.create(
                NewApproval(
                    tool_call_id=call.id,
                    tool_name=tool_item.name,
                    arguments=arguments,
                    requester_id=request.user_id,
                    requester_name=request.user_name,
                    guild_id=request.guild_id,
                    channel_id=request.channel_id,
                    origin_message_id=request.origin_message_id,
                    conversation_key=request.conversation_key,
                    handler=request.handler,
                )
            )
        status = Status(existing.status)
        if status == Status.PENDING:
            yield ev.ApprovalRequired(
                call.id,
                call.name,
                decode_arguments(existing),
                existing.id,
                existing.requester_id,
                existing.expires_at,
            )
            status = await self.approvals.wait(existing.id, state.stop)
        verdict.extend(["person" if status == Status.APPROVED else status, existing.id])

    async def _end_after_rejection(
        self,
        state: _RunState,
        call: m.ToolCall,
        arguments: dict[str, Any],
        status: Status | str,
        rest: list[m.ToolCall],
    ) -> AsyncIterator[ev.AgentEvent]:
        key = state.request.conversation_key
        reason: m.RejectionReason = "invalidated"
        if status == Status.REJECTED:
            reason = "rejected"
        elif status == Status.EXPIRED:
            reason = "timed_out"
        row = await self.approvals.find_by_call(key, call.id)
        detail = row.reason if row is not None else None
        await self.store.append(
            key,
            m.ToolRejectedMessage(call_id=call.id, name=call.name, reason=reason, detail=detail),
        )
        yield ev.ToolRejected(
            call.id, call.name, arguments, reason, detail, row.id if row is not None else None
        )
        for event in await self._invalidate_rest(key, rest):
            yield event

    async def _invalidate_rest(
        self, key: str, rest: list[m.ToolCall]
    ) -> list[ev.ToolRejected]:
        """Calls after a rejected one in the same turn never run; say so in the history."""
        events: list[ev.ToolRejected] = []
        for call in rest:
            row = await self.approvals.find_by_call(key, call.id)
            if row is not None:
                await self.approvals.invalidate(row.id)
            await self.store.append(
                key,
                m.ToolRejectedMessage(call_id=call.id, name=call.name, reason="invalidated"),
            )
            events.append(
                ev.ToolRejected(call.id, call.name, None, "invalidated", None,
                                row.id if row is not None else None)
            )
        return events

    async def _invalidate_leftovers(self, request: RunRequest) -> AsyncIterator[ev.AgentEvent]:
        """A new message moves the conversation on: unanswered calls from before never run."""
        key = request.conversation_key
        leftovers = await self._unanswered_calls(key)
        for event in await self._invalidate_rest(key, leftovers):
            yield event
        for row in await self.approvals.pending_in(key):
            await self.approvals.invalidate(row.id)

    async def _unanswered_calls(self, key: str) -> list[m.ToolCall]:
        tail = await self.store.tail(key)
        calls: list[m.ToolCall] = []
        answered: set[str] = set()
        for stored in tail:
            message = stored.message
            if isinstance(message, m.AssistantMessage) and message.tool_calls:
                calls = list(message.tool_calls)
                answered = set()
            elif isinstance(message, (m.ToolResultMessage, m.ToolRejectedMessage)):
                answered.add(message.call_id)
        return [c for c in calls if c.id not in answered]

    async def _record_result(self, key: str, call: m.ToolCall, result: ToolOutcome) -> None:
        await self.store.append(
            key,
            m.ToolResultMessage(
                call_id=call.id, name=call.name, content=result.to_content(),
                is_error=result.is_error,
            ),
        )

    # -- helpers -------------------------------------------------------------------------

    def _tool_context(self, request: RunRequest) -> ToolContext:
        return ToolContext(
            user_id=request.user_id,
            user_name=request.user_name,
            guild_id=request.guild_id,
            channel_id=request.channel_id,
            clock=self.clock,
            sessions=self.sessions,
            settings=self.settings,
            timezone=request.timezone,
            origin_message_id=request.origin_message_id,
            conversation_key=request.conversation_key,
            is_admin=request.is_admin,
            services=self.services,
        )

    def _prompt_input(self, request: RunRequest, history: list[m.Message]) -> PromptInput:
        latest = next(
            (x.text for x in reversed(history) if isinstance(x, m.UserMessage)), ""
        )
        return PromptInput(
            text=latest,
            user_name=request.user_name,
            local_now=self.clock.now().astimezone(request.timezone),
            timezone=request.timezone,
            guild_id=request.guild_id,
            channel_id=request.channel_id,
        )

    def _after_answer(self, request: RunRequest) -> None:
        self.store.summarise_in_background(request.conversation_key, self._summarize)

    async def _summarize(self, messages: list[dict[str, object]], instructions: str) -> str:
        return await self.llm.complete(
            [{"role": "system", "content": instructions}, *messages,
             {"role": "user", "content": "Write the summary now."}],
            purpose="summary",
        )


def with_timezone(request: RunRequest, timezone: ZoneInfo) -> RunRequest:
    """A copy of request in another time zone."""
    return replace(request, timezone=timezone)
