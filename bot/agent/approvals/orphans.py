"""Approvals decided but never run: the process stopped between the recorded click and the
resume that claims the row."""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.agent.approvals.service import ApprovalService
from bot.agent.tool_calls import ToolCalls
from bot.storage.agent import ApprovalRequest

# A live resume claims its row moments after the click; one approved longer ago than this was
# left behind by a process that stopped (or by a resume that failed before it ran the tool).
LEFT_BEHIND_AFTER = timedelta(seconds=30)
# Decisions older than this are not acted on any more: the member has long moved on.
RESUMABLE_FOR = timedelta(days=1)


async def left_behind(
    approvals: ApprovalService, calls: ToolCalls, now: datetime
) -> list[ApprovalRequest]:
    """Approved requests whose call still waits in its conversation and that no run claimed."""
    rows = await approvals.approved_unclaimed(now - RESUMABLE_FOR, now - LEFT_BEHIND_AFTER)
    waiting: list[ApprovalRequest] = []
    for row in rows:
        # A conversation that moved on answered the call already: nothing to run.
        if row.tool_call_id in {call.id for call in await calls.unanswered(row.conversation_key)}:
            waiting.append(row)
    return waiting
