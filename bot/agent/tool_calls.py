"""Settling the tool calls of a turn: validate, gate through approvals, run, record."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, Literal

from bot.agent import events as ev
from bot.agent.approvals import taint
from bot.agent.approvals.service import ApprovalService, NewApproval, Status, decode_arguments
from bot.agent.approvals.types import original_arguments
from bot.agent.call_records import CallRecords
from bot.agent.conversation import messages as m
from bot.agent.conversation.fences import Untrusted
from bot.agent.conversation.history import ConversationStore, unanswered_in
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
from bot.i18n import Text
from bot.runtime.clock import Clock
from bot.storage.agent import ApprovalRequest

log = logging.getLogger(__name__)

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


def asking_of(row: ApprovalRequest, tool_item: Tool) -> ev.ApprovalRequired:
    """The card event of a stored pending request."""
    return ev.ApprovalRequired(
        row.tool_call_id,
        row.tool_name,
        decode_arguments(row),
        row.id,
        row.requester_id,
        row.expires_at,
        # Only a tool from outside is labelled with where it comes from.
        source=tool_item.source if tool_item.provider is not None else None,
        because=taint.ordered(taint.loaded(row.untrusted)),
    )


@dataclass(frozen=True)
class Gate:
    """What the approval gate found for one call, and the card to show when it asks."""

    verdict: ApprovedBy | Status | Literal["awaiting", "elsewhere", "changed"]
    row: ApprovalRequest | None = None
    # The cards to show: this call's, then those of later calls of the turn asked with it.
    asking: tuple[ev.ApprovalRequired, ...] = ()

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
        ran = rejected_in_batch = False
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
            if arguments is not None and problem is None:
                problem = await self._checked(state, tool_item, call, arguments)
            if arguments is None or problem is not None:
                # Invalid: straight back to the model, no card and nobody asked.
                content = ToolOutcome(problem, is_error=True)
                await self._record_result(key, call, content)
                yield ev.ToolResult(call.id, call.name, None, problem, True)
                continue
            gate = await self._gate(state, handler, tool_item, call, arguments, rest)
            for asking in gate.asking:
                yield asking
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
            if (
                gate.verdict == Status.REJECTED
                and gate.row is not None
                and gate.row.batch is not None
            ):
                # Asked together with others: each was decided on its own, so the others
                # still run (or were rejected too); the model hears of each.
                yield await self._rejected_in_batch(key, call, arguments, gate.row)
                rejected_in_batch = True
                continue
            if isinstance(gate.verdict, Status):
                async for event in self._end_after_rejection(state, call, arguments, gate, rest):
                    yield event
                yield SettleEnd(_END_OF_REFUSAL[gate.verdict])
                return
            edited_from = original_arguments(gate.row) if gate.row is not None else None
            if edited_from is not None and gate.row is not None:
                # A member changed the arguments before approving: the edit is what runs.
                arguments = decode_arguments(gate.row)
            ran = True
            yield ev.ToolExecuting(
                call.id,
                call.name,
                arguments,
                approved_by=gate.verdict,
                approval_id=gate.approval_id,
                decided_by=gate.row.decided_by if gate.row is not None else None,
                edited=edited_from is not None,
            )
            ctx = self._make_context(state.request)
            ctx.call_id, ctx.raw_arguments = call.id, call.arguments
            if edited_from is not None:
                # A tool in another process reads the arguments as sent: the edit is sent.
                ctx.raw_arguments = json.dumps(arguments, ensure_ascii=False)
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
            await self._record_result(key, call, result, edited_from, arguments)
            await self.records.finished(key, call.id, self._clock.now())
            yield ev.ToolResult(
                call.id, call.name, arguments, result.output, result.is_error, gate.approval_id
            )
        # Every call asked together was rejected and nothing ran: the answer ends as a
        # rejection does; otherwise the model goes on with what ran and what did not.
        yield SettleEnd("rejected" if rejected_in_batch and not ran else "continue")

    async def _checked(
        self, state: RunState, tool_item: Tool, call: m.ToolCall, arguments: dict[str, Any]
    ) -> str | None:
        """The tool's own check of a new call (None: it may go on); a call a member already
        decided on is not checked again here (the tool still refuses what cannot work)."""
        if tool_item.check is None or call.id in state.decided:
            return None
        if tool_item.requires_approval and await self.approvals.find_by_call(
            state.request.conversation_key, call.id
        ):
            return None
        ctx = self._make_context(state.request)
        try:
            return await tool_item.check(arguments, ctx)
        except Exception:  # a broken check must not block the call: the tool checks again
            log.exception("The check of %s failed", tool_item.name)
            return None

    async def validate_edit(
        self, row: ApprovalRequest, request: RunRequest, arguments: dict[str, Any]
    ) -> tuple[dict[str, Any] | None, str | None]:
        """A member's edit of a pending call, checked as the model's call was (schema, then
        the tool's own checks with the row's run request): the arguments, or what is wrong
        with them."""
        tool_item = self.registry.get(row.tool_name)
        if tool_item is None or tool_item.provider != row.provider:
            return None, "This tool is no longer available."
        parsed, problem = parse_arguments(tool_item, json.dumps(arguments, ensure_ascii=False))
        if parsed is None or problem is not None:
            return None, problem
        if tool_item.check is not None:
            ctx = self._make_context(request)
            problem = await tool_item.check(parsed, ctx)
        return (None, problem) if problem is not None else (parsed, None)

    def _offered(self, state: RunState, handler: Handler, name: str) -> Tool | None:
        """The tool, if this handler offers it where the request comes from; scope is enforced
        here, where tools run, not only when they are listed for the model."""
        return self.registry.offers(name, handler.tools, state.request.guild_id, handler.name)

    async def _gate(
        self,
        state: RunState,
        handler: Handler,
        tool_item: Tool,
        call: m.ToolCall,
        arguments: dict[str, Any],
        rest: list[m.ToolCall],
    ) -> Gate:
        """Decide from the stored row whether the call may run; never waits for a person."""
        request = state.request
        if not tool_item.requires_approval and not await self._asks_anyway(state, tool_item):
            return Gate("not_needed")
        # A resume hands over the row it claimed; other calls are looked up once.
        existing = state.decided.get(call.id) or await self.approvals.find_by_call(
            request.conversation_key, call.id
        )
        if existing is None:
            ask, why = await self._needs_asking(state, tool_item)
            if not ask:
                return Gate("grant" if why == "grant" else "policy")
            # Later calls of the turn that need a person too are asked at the same time, on
            # cards that can be decided one by one or all at once.
            others = await self._also_asking(state, handler, rest)
            batch = call.id if others else None
            first = await self._ask(state, tool_item, call, arguments, batch)
            asked = [first]
            listed = [(tool_item.name, arguments)]
            for other_tool, other_call, other_arguments in others:
                asked.append(await self._ask(state, other_tool, other_call, other_arguments, batch))
                listed.append((other_tool.name, other_arguments))
            calls = tuple(listed) if others else ()
            # The row exists before the card: a decision made anywhere later finds it.
            cards = [
                replace(asking_of(row, item), details=await self._details(state, item, row))
                for row, item in asked
            ]
            cards[0] = replace(cards[0], batch=calls)
            return Gate("awaiting", first[0], tuple(cards))
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

    async def _ask(
        self,
        state: RunState,
        tool_item: Tool,
        call: m.ToolCall,
        arguments: dict[str, Any],
        batch: str | None,
    ) -> tuple[ApprovalRequest, Tool]:
        """Store the pending request of one call (before any card shows it)."""
        request = state.request
        row = await self.approvals.create(
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
                batch=batch,
                untrusted=taint.stored(await self._untrusted(state)),
            )
        )
        return row, tool_item

    async def _details(
        self, state: RunState, tool_item: Tool, row: ApprovalRequest
    ) -> tuple[tuple[Text, str], ...]:
        """What the tool says the call is about, for its card (nothing if it cannot say)."""
        if tool_item.look is None or tool_item.look.details is None:
            return ()
        try:
            found = await tool_item.look.details(
                decode_arguments(row), self._make_context(state.request)
            )
        except Exception:  # the card is shown without them rather than not at all
            log.exception("Describing a call of %s failed", tool_item.name)
            return ()
        return tuple(found)

    async def _also_asking(
        self, state: RunState, handler: Handler, rest: list[m.ToolCall]
    ) -> list[tuple[Tool, m.ToolCall, dict[str, Any]]]:
        """The later calls of the turn that are valid and will need a person's approval."""
        found: list[tuple[Tool, m.ToolCall, dict[str, Any]]] = []
        key = state.request.conversation_key
        for call in rest:
            tool_item = self._offered(state, handler, call.name)
            if tool_item is None or not tool_item.requires_approval:
                continue
            arguments, problem = parse_arguments(tool_item, call.arguments)
            if arguments is None or problem is not None:
                continue
            if await self._checked(state, tool_item, call, arguments) is not None:
                continue  # refused without a card when the turn reaches it
            if await self.approvals.find_by_call(key, call.id) is not None:
                continue
            ask, _ = await self._needs_asking(state, tool_item)
            if ask:
                found.append((tool_item, call, arguments))
        return found

    async def _needs_asking(self, state: RunState, tool_item: Tool) -> tuple[bool, str]:
        """Whether a new call of the tool needs a person (see needs_asking), untrusted words
        in the turn's context included (see taint.py)."""
        request = state.request
        if tool_item.requires_approval:
            ask, why = await self.approvals.needs_asking(
                request.user_id, tool_item.name, tool_item.provider, guild_id=request.guild_id
            )
            if ask:
                return ask, why
        else:
            why = "policy"
        if await self._asks_anyway(state, tool_item):
            return True, ""
        return False, why

    async def _asks_anyway(self, state: RunState, tool_item: Tool) -> bool:
        """The taint rule for this call: untrusted words in context and a tool that acts; and
        a run nobody is watching (started on a schedule) never acts without a person's click."""
        if tool_item.read_only:
            return False
        if state.request.unattended:
            return True
        return taint.asks_anyway(tool_item, await self._untrusted(state))

    async def _untrusted(self, state: RunState) -> set[Untrusted]:
        """Where the untrusted words the run has read come from: its history's window, its
        prompt's sections and the approval it resumes from."""
        history = await self.store.context(state.request.conversation_key)
        return state.untrusted | taint.untrusted_in(history, state.request.user_id)

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

    async def invalidate_leftovers(
        self, request: RunRequest, leftovers: list[m.ToolCall]
    ) -> AsyncIterator[ev.AgentEvent]:
        """A new message moves the conversation on: unanswered calls from before (leftovers, in
        the turn read just now: see unanswered_in) never run; one event per call."""
        key = request.conversation_key
        for event in await self.invalidate_rest(key, leftovers):
            yield event
        for row in await self.approvals.pending_in(key):
            await self.approvals.invalidate(row.id)

    async def unanswered(self, key: str) -> list[m.ToolCall]:
        """The open calls of the conversation's last assistant turn."""
        return unanswered_in(await self.store.tail(key))

    async def _record_result(
        self,
        key: str,
        call: m.ToolCall,
        result: ToolOutcome,
        edited_from: dict[str, Any] | None = None,
        arguments: dict[str, Any] | None = None,
    ) -> None:
        content = result.to_content()
        if edited_from is not None:
            # The model must know what actually ran: its call said something else.
            told = json.loads(content)
            told["arguments_changed_by_member"] = {"you_sent": edited_from, "ran_with": arguments}
            content = json.dumps(told, ensure_ascii=False, default=str)
        await self.store.append(
            key,
            m.ToolResultMessage(
                call_id=call.id,
                name=call.name,
                content=content,
                is_error=result.is_error,
                untrusted=result.untrusted,
            ),
        )

    async def _rejected_in_batch(
        self, key: str, call: m.ToolCall, arguments: dict[str, Any], row: ApprovalRequest
    ) -> ev.ToolRejected:
        await self.store.append(
            key,
            m.ToolRejectedMessage(
                call_id=call.id, name=call.name, reason="rejected", detail=row.reason
            ),
        )
        return ev.ToolRejected(
            call.id, call.name, arguments, "rejected", row.reason, row.id, row.decided_by
        )

    async def left_behind(self, now: datetime) -> list[ApprovalRequest]:
        """Decided requests whose call still waits in its conversation and that no resume
        claimed: the process stopped between the recorded click and the resume."""
        rows = await self.approvals.decided_unresumed(now - RESUMABLE_FOR, now - LEFT_BEHIND_AFTER)
        waiting: list[ApprovalRequest] = []
        for row in rows:
            if await self.approvals.batch_waits(row):
                continue  # asked with calls still undecided: their decision carries it on
            # A conversation that moved on answered the call already: nothing to run.
            if row.tool_call_id in {
                call.id for call in await self.unanswered(row.conversation_key)
            }:
                waiting.append(row)
        return waiting
