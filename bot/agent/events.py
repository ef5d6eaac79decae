"""Events the agent emits as a run progresses; the Discord layer and the console render them."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from bot.agent.conversation.fences import Untrusted
from bot.agent.conversation.messages import RejectionReason
from bot.agent.llm.client import Usage
from bot.i18n import Text

DoneReason = Literal[
    "answered",
    "max_steps",
    "rejected",
    "expired",
    "interrupted",
    "shutdown",
    "cut",
    "awaiting_approval",
    "changed",
]
ApprovedBy = Literal["not_needed", "policy", "grant", "person"]


@dataclass(frozen=True)
class TextDelta:
    """A piece of the answer, streamed as the model writes it."""

    text: str


@dataclass(frozen=True)
class ToolCallStarted:
    """The model began a tool call; only its name is known yet."""

    call_id: str
    name: str


@dataclass(frozen=True)
class ApprovalRequired:
    """A person must approve this call; the approval row already exists."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    approval_id: int
    requester_id: int
    expires_at: datetime
    # Where a tool from outside comes from (a plugin's source tag, `mcp:<server>`).
    source: str | None = None
    # Every call of the answer asked together (name and arguments, this one first), when
    # several are: this card lists them and offers to approve or reject them all.
    batch: tuple[tuple[str, dict[str, Any]], ...] = ()
    # What the call is about, as the tool describes it for members (label, value).
    details: tuple[tuple[Text, str], ...] = ()
    # The untrusted words the turn had read (a quote, a file, a web page...): why this card is
    # shown even when the member always allows the tool.
    because: tuple[Untrusted, ...] = ()


@dataclass(frozen=True)
class ToolExecuting:
    """The call was approved (or needs no approval) and is running."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    approved_by: ApprovedBy
    approval_id: int | None = None
    # Who approved it, when a person did.
    decided_by: int | None = None
    # A member changed the arguments before approving (arguments are the edit).
    edited: bool = False


@dataclass(frozen=True)
class ToolResult:
    """The call finished; output is what the model receives."""

    call_id: str
    name: str
    arguments: dict[str, Any] | None
    output: Any
    is_error: bool
    approval_id: int | None = None


@dataclass(frozen=True)
class ToolRejected:
    """The call did not run (rejected, expired, interrupted or invalidated)."""

    call_id: str
    name: str
    arguments: dict[str, Any] | None
    reason: RejectionReason
    detail: str | None = None
    approval_id: int | None = None
    # Who rejected it, when a person did.
    decided_by: int | None = None


@dataclass(frozen=True)
class RoundEnd:
    """One model call ended; `step` counts calls in this run from 1."""

    step: int


@dataclass(frozen=True)
class Notice:
    """A note about the run for the user (not model text)."""

    text: str


@dataclass(frozen=True)
class Done:
    """The run ended; text is the final answer of the last round. `awaiting_approval` means a
    card waits for a person: the decision resumes the conversation from stored history."""

    text: str
    reason: DoneReason
    usage: Usage = field(default_factory=Usage)


@dataclass(frozen=True)
class Failed:
    """The run could not finish; message is a sentence for the user."""

    message: str
    kind: str


AgentEvent = (
    TextDelta
    | ToolCallStarted
    | ApprovalRequired
    | ToolExecuting
    | ToolResult
    | ToolRejected
    | RoundEnd
    | Notice
    | Done
    | Failed
)
