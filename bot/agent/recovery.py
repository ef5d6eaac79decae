"""After a crash: every tool call a stopped process left open ends in a state that tells the
truth, in the conversation (what the model reads next) and on its card.

A call that started running ends as "started, outcome unknown"; one that never started as
"cancelled, nothing was run"; one whose result reached the history but not its card gets the
card it should have had. Calls still waiting for a click are left to their approval.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Literal

from bot.agent.approvals.service import ApprovalService, Status
from bot.agent.call_records import OPEN_CARD_GRACE, CallRecords, OpenCall
from bot.agent.conversation import messages as m
from bot.agent.conversation.history import ConversationStore
from bot.runtime.clock import Clock

log = logging.getLogger(__name__)

# A result's two ways, or one of a call that did not finish (its RejectionReason).
Outcome = Literal["done", "failed"] | m.RejectionReason

RESTART_DETAIL = "The bot restarted before this call could run."
BROKE_OFF_DETAIL = "The answer broke off (the bot restarted) before this call was complete."


@dataclass(frozen=True)
class Recovered:
    """How an open call ended, for its card."""

    call: OpenCall
    outcome: Outcome
    detail: str | None = None


class Recovery:
    """Finds the calls a stopped process left open and ends each truthfully."""

    def __init__(
        self,
        records: CallRecords,
        store: ConversationStore,
        approvals: ApprovalService,
        clock: Clock,
    ) -> None:
        self._records = records
        self._store = store
        self._approvals = approvals
        self._clock = clock

    async def recover(self, *, everyone: bool) -> list[Recovered]:
        """End what earlier incarnations of this process left open (and with everyone, what
        any stopped process left once its lease ran out)."""
        now = self._clock.now()
        ended: list[Recovered] = []
        for call in await self._records.left_open(now, everyone=everyone):
            outcome = await self._end(call)
            if outcome is not None:
                ended.append(outcome)
        if ended:
            log.info("Ended %d tool calls a stopped process left open", len(ended))
        return ended

    async def _end(self, call: OpenCall) -> Recovered | None:
        key = call.conversation_key
        row = await self._approvals.find_by_call(key, call.call_id)
        if row is not None and row.status != Status.INVALIDATED:
            if row.resumed_at is None:
                # Waiting for a click, or decided and soon resumed by the sweep: theirs to end.
                return None
            if not call.started and row.resumed_at > self._clock.now() - OPEN_CARD_GRACE:
                # Claimed by a resume (here or in another process) that has not run the tool
                # yet: it is about to. Should its process have died first, the sweep ends the
                # call once the grace has passed.
                return None
        tail = await self._store.tail(key)
        asked = False
        for stored in tail:
            message = stored.message
            if isinstance(message, m.AssistantMessage):
                asked = asked or any(c.id == call.call_id for c in message.tool_calls)
            elif isinstance(message, m.ToolResultMessage) and message.call_id == call.call_id:
                await self._records.finished(key, call.call_id, self._clock.now())
                return Recovered(call, "failed" if message.is_error else "done")
            elif isinstance(message, m.ToolRejectedMessage) and message.call_id == call.call_id:
                await self._records.finished(key, call.call_id, self._clock.now())
                return Recovered(call, message.reason, message.detail)
        now = self._clock.now()
        if call.started:
            if asked:
                await self._store.append(
                    key,
                    m.ToolRejectedMessage(
                        call_id=call.call_id, name=call.tool_name, reason="unknown_outcome"
                    ),
                )
            await self._records.finished(key, call.call_id, now)
            return Recovered(call, "unknown_outcome")
        if asked:
            await self._store.append(
                key,
                m.ToolRejectedMessage(
                    call_id=call.call_id,
                    name=call.tool_name,
                    reason="invalidated",
                    detail=RESTART_DETAIL,
                ),
            )
            return Recovered(call, "invalidated", RESTART_DETAIL)
        # Never reached the history (the stream broke off) or belongs to an earlier turn.
        return Recovered(call, "invalidated", BROKE_OFF_DETAIL)
