"""Settling the tool calls of a turn: validate, gate through approvals, run, record."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from bot.agent import events as ev
from bot.agent.approvals.service import ApprovalService, NewApproval, Status, decode_arguments
from bot.agent.call_records import CallRecords
from bot.agent.conversation import messages as m
from bot.agent.conversation.history import ConversationStore
from bot.agent.events import ApprovedBy
from bot.agent.runs import Handler, RunRequest, RunState, Stopped, race, stop_reason
from bot.agent.tools import (
    Tool,
    ToolContext,
    ToolOutcome,
    ToolRegistry,
    execute,
    parse_arguments,
)
from bot.runtime.clock import Clock
from bot.storage.agent import ApprovalRequest

SettleEndKind = Literal[
    "continue", "rejected", "expired", "interrupted", "awaiting_approval", "elsewhere", "changed"
]

_END_OF_REFUSAL: dict[Status, SettleEndKind] = {
    Status.REJECTED: "rejected",
    Status.EXPIRED: "expired",
    Status.INVALIDATED: "interrupted",
}

# A live resume claims its row moments after the click; one approved longer ago than this was
# left behind by a process that stopped (or by a resume that failed before it ran the tool).
LEFT_BEHIND_AFTER = timedelta(seconds=30)
# Decisions older than this are not acted on any more: the member has long moved on.
RESUMABLE_FOR = timedelta(days=1)


@dataclass(frozen=True)
class SettleEnd:
    """How settling a turn ended; the loop decides what happens next from it."""

    kind: SettleEndKind


SettleStep = ev.AgentEvent | SettleEnd


@dataclass(frozen=True)
class Gate:
    """What the approval gate found for one call, and the card to show when it asks."""

    verdict: ApprovedBy | Status | Literal["awaiting", "elsewhere", "changed"]
    row: ApprovalRequest | None = None
    asking: ev.ApprovalRequired | None = None

    @property
    def approval_id(self) -> int | None:
        """The approval row's id, when the call has one."""
        return self.row.id if self.row is not None else None


class ToolCalls:
    """Gates and runs the unanswered calls of a conversation's last assistant turn."""

    def __init__(
        self,
        *,
        registry: ToolRegistry,
        approvals: ApprovalService,
        store: ConversationStore,
        records: CallRecords,
        clock: Clock,
        make_context: Callable[[RunRequest], ToolContext[object]],
    ) -> None:
        self.registry = registry
        self.approvals = approvals
        self.store = store
        self.records = records
        self._clock = clock
        self._make_context = make_context

    async def settle(
        self,
        state: RunState,
        handler: Handler,
        unanswered: list[m.ToolCall] | None = None,
    ) -> AsyncIterator[SettleStep]:
        """Gate and run every unanswered call of the last assistant turn, in order; the last
        item is how the turn ended (continue, rejected, expired, interrupted, awaiting).
        unanswered is the turn's open calls when the caller has just read them."""
        key = state.request.conversation_key
        if unanswered is None:
            unanswered = await self.unanswered(key)
        for position, call in enumerate(unanswered):
            rest = unanswered[position + 1 :]
            tool_item = self._offered(state, handler, call.name)
            if tool_item is None:
                available = ", ".join(
                    t.name
                    for t in self.registry.select(
                        handler.tools, state.request.guild_id, handler.name
                    )
                )
                content = ToolOutcome(
                    f"There is no tool called {call.name!r} here. "
                    f"Available tools: {available or 'none'}.",
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
            gate = await self._gate(state, tool_item, call, arguments)
            if gate.asking is not None:
                yield gate.asking
            if gate.verdict == "awaiting":
                yield SettleEnd("awaiting_approval")
                return
            if gate.verdict == "elsewhere":
                yield SettleEnd("elsewhere")
                return
            if gate.verdict == "changed":
                async for event in self._end_after_rejection(
                    state, call, arguments, gate, rest, "tool_changed"
                ):
                    yield event
                yield SettleEnd("changed")
                return
            if isinstance(gate.verdict, Status):
                async for event in self._end_after_rejection(state, call, arguments, gate, rest):
                    yield event
                yield SettleEnd(_END_OF_REFUSAL[gate.verdict])
                return
            yield ev.ToolExecuting(
                call.id,
                call.name,
                arguments,
                approved_by=gate.verdict,
                approval_id=gate.approval_id,
                decided_by=gate.row.decided_by if gate.row is not None else None,
            )
            ctx = self._make_context(state.request)
            ctx.call_id, ctx.raw_arguments = call.id, call.arguments
            # Recorded before the tool starts: a crash from here on leaves "started, outcome
            # unknown", never a false "nothing was run".
            await self.records.started(
                key,
                call.id,
                call.name,
                state.request.channel_id,
                self._clock.now(),
                tool_item.timeout,
            )
            try:
                result = await race(execute(tool_item, ctx, arguments), state.stop)
            except Stopped:
                # A member's Stop interrupts the call; a shutdown cuts it off at a point nobody
                # chose, so whether it took effect is unknown.
                shutdown = stop_reason(state.stop) == "shutdown"
                ended: m.RejectionReason = "unknown_outcome" if shutdown else "interrupted"
                rejected = m.ToolRejectedMessage(
                    call_id=call.id,
                    name=call.name,
                    reason=ended,
                    partial=list(ctx.partial) or None,
                )
                await self.store.append(key, rejected)
                await self.records.finished(key, call.id, self._clock.now())
                yield ev.ToolRejected(call.id, call.name, arguments, ended, None, gate.approval_id)
                after: m.RejectionReason = "after_shutdown" if shutdown else "after_stop"
                for event in await self.invalidate_rest(key, rest, after):
                    yield event
                yield SettleEnd("interrupted")
                return
            await self._record_result(key, call, result)
            await self.records.finished(key, call.id, self._clock.now())
            yield ev.ToolResult(
                call.id, call.name, arguments, result.output, result.is_error, gate.approval_id
            )
        yield SettleEnd("continue")

    def _offered(self, state: RunState, handler: Handler, name: str) -> Tool | None:
        """The tool, if this handler offers it where the request comes from; scope is enforced
        here, where tools run, not only when they are listed for the model."""
        return self.registry.offers(name, handler.tools, state.request.guild_id, handler.name)

    async def _gate(
        self, state: RunState, tool_item: Tool, call: m.ToolCall, arguments: dict[str, Any]
    ) -> Gate:
        """Decide from the stored row whether the call may run; never waits for a person."""
        request = state.request
        if not tool_item.requires_approval:
            return Gate("not_needed")
        # A resume hands over the row it claimed; other calls are looked up once.
        existing = state.decided.get(call.id) or await self.approvals.find_by_call(
            request.conversation_key, call.id
        )
        if existing is None:
            ask, why = await self.approvals.needs_asking(
                request.user_id, tool_item.name, tool_item.provider, guild_id=request.guild_id
            )
            if not ask:
                return Gate("grant" if why == "grant" else "policy")
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
                    run_request=request.to_json(),
                    provider=tool_item.provider,
                )
            )
            # The row exists before the card: a decision made anywhere later finds it.
            asking = ev.ApprovalRequired(
                call.id,
                call.name,
                decode_arguments(existing),
                existing.id,
                existing.requester_id,
                existing.expires_at,
                source=None if tool_item.source == "core" else tool_item.source,
            )
            return Gate("awaiting", existing, asking)
        status = Status(existing.status)
        if status == Status.PENDING:
            # Still undecided: the click (or the expiry sweep) will resume the conversation.
            return Gate("awaiting", existing)
        if existing.id in state.claimed:
            # This run's resume claimed the decision: it alone carries it on.
            return await self._carry_on(existing, tool_item)
        if status in (Status.APPROVED, Status.REJECTED, Status.EXPIRED):
            # Decided but not yet carried on: of all who try, only one claimant goes on.
            if not await self.approvals.claim_resume(existing):
                return Gate("elsewhere", existing)
            state.claimed.add(existing.id)
            return await self._carry_on(existing, tool_item)
        if status == Status.EXECUTED:
            return Gate("elsewhere", existing)
        return Gate(status, existing)

    async def _carry_on(self, row: ApprovalRequest, tool_item: Tool) -> Gate:
        """A decision this run claimed. An approval runs the tool only if the name is still
        provided by the provider the card showed; otherwise that decision is not for this
        tool, and nothing runs."""
        status = Status(row.status)
        if status != Status.EXECUTED:
            return Gate(status, row)
        if row.provider != tool_item.provider:
            await self.approvals.withdraw_changed(row)
            return Gate("changed", row)
        return Gate("person", row)

    async def _end_after_rejection(
        self,
        state: RunState,
        call: m.ToolCall,
        arguments: dict[str, Any],
        gate: Gate,
        rest: list[m.ToolCall],
        why: m.RejectionReason | None = None,
    ) -> AsyncIterator[ev.AgentEvent]:
        key = state.request.conversation_key
        reason: m.RejectionReason = "invalidated"
        after: m.RejectionReason = "invalidated"
        if why is not None:
            reason = why
        elif gate.verdict == Status.REJECTED:
            reason, after = "rejected", "after_rejection"
        elif gate.verdict == Status.EXPIRED:
            reason, after = "timed_out", "after_expiry"
        row = gate.row
        detail = row.reason if row is not None else None
        await self.store.append(
            key,
            m.ToolRejectedMessage(call_id=call.id, name=call.name, reason=reason, detail=detail),
        )
        yield ev.ToolRejected(
            call.id,
            call.name,
            arguments,
            reason,
            detail,
            row.id if row is not None else None,
            decided_by=row.decided_by if row is not None else None,
        )
        for event in await self.invalidate_rest(key, rest, after):
            yield event

    async def invalidate_rest(
        self, key: str, rest: list[m.ToolCall], why: m.RejectionReason = "invalidated"
    ) -> list[ev.ToolRejected]:
        """Calls that will never run (after a rejected or stopped one of the same turn, or
        left behind when the conversation moved on); say why in the history. A call that had
        started (a process stopped while it ran) is recorded as started with an unknown
        outcome, which is the truth."""
        events: list[ev.ToolRejected] = []
        started = await self.records.started_calls(key, [call.id for call in rest])
        for call in rest:
            row = await self.approvals.find_by_call(key, call.id)
            if row is not None:
                await self.approvals.invalidate(row.id)
            reason: m.RejectionReason = "unknown_outcome" if call.id in started else why
            await self.store.append(
                key, m.ToolRejectedMessage(call_id=call.id, name=call.name, reason=reason)
            )
            if call.id in started:
                await self.records.finished(key, call.id, self._clock.now())
            events.append(
                ev.ToolRejected(
                    call.id, call.name, None, reason, None, row.id if row is not None else None
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

    async def left_behind(self, now: datetime) -> list[ApprovalRequest]:
        """Decided requests whose call still waits in its conversation and that no resume
        claimed: the process stopped between the recorded click and the resume."""
        rows = await self.approvals.decided_unresumed(now - RESUMABLE_FOR, now - LEFT_BEHIND_AFTER)
        waiting: list[ApprovalRequest] = []
        for row in rows:
            # A conversation that moved on answered the call already: nothing to run.
            if row.tool_call_id in {
                call.id for call in await self.unanswered(row.conversation_key)
            }:
                waiting.append(row)
        return waiting
