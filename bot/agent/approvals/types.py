"""The words of approvals: a request's status, a person's decision, what a click achieved."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from bot.i18n import Language, Text, answers
from bot.storage.agent import ApprovalRequest


class Status(StrEnum):
    """Where an approval request stands."""

    PENDING = "pending"
    APPROVED = "approved"
    # Approved and claimed by the run executing it, so a second resume cannot run it again.
    EXECUTED = "executed"
    REJECTED = "rejected"
    EXPIRED = "expired"
    INVALIDATED = "invalidated"


class Decision(StrEnum):
    """What a person chose on the card."""

    APPROVE = "approve"
    REJECT = "reject"
    ALWAYS = "always"


@dataclass(frozen=True)
class NewApproval:
    """What the agent knows when a call needs approval."""

    tool_call_id: str
    tool_name: str
    arguments: dict[str, Any]
    requester_id: int
    requester_name: str
    guild_id: int | None
    channel_id: int
    origin_message_id: int | None
    conversation_key: str
    handler: str
    # The run request as JSON (RunRequest.to_json), restored whole by the resume.
    run_request: str | None = None
    # The tool's provider as the card shows it (tools from outside; None for the bot's own).
    provider: str | None = None
    # The first call's id when one model turn asks for several approvals at once.
    batch: str | None = None
    # Where the untrusted words the turn had read come from (taint.stored), if any.
    untrusted: str | None = None


@dataclass(frozen=True)
class DecisionOutcome:
    """The result of a click: whether it took effect, and a sentence for the clicker."""

    effective: bool
    status: Status | None
    message: str
    request: ApprovalRequest | None
    # This call changed the row (decided it, or found it overdue and expired it): the caller
    # owns continuing the conversation, and nobody else will.
    changed: bool = False


def not_yours_text(requester_name: str, language: Language = "en") -> str:
    """The sentence for someone who may not decide another member's call."""
    return answers.NOT_YOURS(language, name=requester_name)


_ALREADY: dict[Status, Text] = {
    Status.PENDING: answers.STILL_PENDING,
    Status.APPROVED: answers.ALREADY_APPROVED,
    Status.EXECUTED: answers.ALREADY_APPROVED,
    Status.REJECTED: answers.ALREADY_REJECTED,
    Status.EXPIRED: answers.ALREADY_EXPIRED,
    Status.INVALIDATED: answers.ALREADY_INVALIDATED,
}


def already_text(status: Status, language: Language = "en") -> str:
    """The sentence for a click on a request that is no longer pending."""
    return _ALREADY[status](language)


def decode_arguments(request: ApprovalRequest) -> dict[str, Any]:
    """The stored arguments as a dict (a member's edit, when they made one)."""
    loaded = json.loads(request.arguments)
    return loaded if isinstance(loaded, dict) else {}


def original_arguments(request: ApprovalRequest) -> dict[str, Any] | None:
    """The model's arguments when a member edited them, else None."""
    if request.original_arguments is None:
        return None
    loaded = json.loads(request.original_arguments)
    return loaded if isinstance(loaded, dict) else {}
