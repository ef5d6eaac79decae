"""Settling the tool calls of a turn: validate, gate through approvals, run, record."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

from bot.agent import events as ev
from bot.agent import messages as m
from bot.agent.approvals import ApprovalService, NewApproval, Status, decode_arguments
from bot.agent.history import ConversationStore
from bot.agent.runs import Handler, RunRequest, RunState, Settle, Stopped, race
from bot.agent.tools import (
    Tool,
    ToolContext,
    ToolOutcome,
    ToolRegistry,
    execute,
    parse_arguments,
)


class ToolCalls:
    """Gates and runs the unanswered calls of a conversation's last assistant turn."""

    def __init__(
        self,
        *,
        registry: ToolRegistry,
        approvals: ApprovalService,
        store: ConversationStore,
        make_context: Callable[[RunRequest], ToolContext],
    ) -> None:
        self.registry = registry
        self.approvals = approvals
        self.store = store
        self._make_context = make_context

    async def settle(
        self, state: RunState, handler: Handler, outcome: list[Settle]
    ) -> AsyncIterator[ev.AgentEvent]:
        """Gate and run every unanswered call of the last assistant turn, in order."""
        key = state.request.conversation_key
        unanswered = await self.unanswered(key)
        for position, call in enumerate(unanswered):
            tool_item = self.registry.offers(
                call.name, handler.tools, state.request.guild_id, handler.name
            )
            if tool_item is None:
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
            ctx = self._make_context(state.request)
            ctx.call_id, ctx.raw_arguments = call.id, call.arguments
            try:
                result = await race(execute(tool_item, ctx, arguments), state.stop)
            except Stopped:
                rejected = m.ToolRejectedMessage(
                    call_id=call.id,
                    name=call.name,
                    reason="interrupted",
                    partial=list(ctx.partial) or None,
                )
                await self.store.append(key, rejected)
                yield ev.ToolRejected(call.id, call.name, arguments, "interrupted")
                for event in await self.invalidate_rest(key, unanswered[position + 1 :]):
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
        state: RunState,
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
                source=None if tool_item.source == "core" else tool_item.source,
            )
            status = await self.approvals.wait(existing.id, state.stop)
        verdict.extend(["person" if status == Status.APPROVED else status, existing.id])

    async def _end_after_rejection(
        self,
        state: RunState,
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
        for event in await self.invalidate_rest(key, rest):
            yield event

    async def invalidate_rest(self, key: str, rest: list[m.ToolCall]) -> list[ev.ToolRejected]:
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
                ev.ToolRejected(
                    call.id,
                    call.name,
                    None,
                    "invalidated",
                    None,
                    row.id if row is not None else None,
                )
            )
        return events

    async def invalidate_leftovers(self, request: RunRequest) -> AsyncIterator[ev.AgentEvent]:
        """A new message moves the conversation on: unanswered calls from before never run."""
        key = request.conversation_key
        leftovers = await self.unanswered(key)
        for event in await self.invalidate_rest(key, leftovers):
            yield event
        for row in await self.approvals.pending_in(key):
            await self.approvals.invalidate(row.id)

    async def unanswered(self, key: str) -> list[m.ToolCall]:
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
                call_id=call.id,
                name=call.name,
                content=result.to_content(),
                is_error=result.is_error,
            ),
        )
