"""Typed conversation messages, richer than what the model sees, flattened by one to_llm()
(a user turn with the files and quotes it carries, fenced)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, assert_never

from pydantic import BaseModel, Field, TypeAdapter

from bot.agent.conversation.fences import MAX_CHARS, Untrusted, attribute, fence

__all__ = ["Untrusted"]
from bot.agent.conversation.parts import FilePart, MissingReason, QuotePart, QuoteRelation

RejectionReason = Literal[
    "rejected",
    "timed_out",
    "interrupted",
    "invalidated",
    "unknown_outcome",
    "tool_changed",
    # Not run because of what happened to an earlier call of the same turn, or to the run.
    "after_rejection",
    "after_expiry",
    "after_stop",
    "after_shutdown",
]

# What the model reads for each way a tool call can end without a result.
REJECTION_TEXT: dict[RejectionReason, str] = {
    "rejected": "The user rejected this tool call. Do not retry it unless the user asks again.",
    "timed_out": "Nobody approved this tool call in time, so it did not run.",
    "interrupted": "The tool call was interrupted by the user before it finished.",
    "invalidated": "This tool call was cancelled because the conversation moved on.",
    "unknown_outcome": "This tool call started, but the bot stopped before it finished, so its "
    "outcome is unknown: it may or may not have taken effect. Tell the user, and check before "
    "doing it again.",
    "tool_changed": "The tool changed (another provider, or a new definition) after the user "
    "approved this call, so it did not run. Tell the user; if they still want it, call it again "
    "so they can approve the tool as it is now.",
    "after_rejection": "Not run: the user rejected an earlier tool call of the same turn.",
    "after_expiry": "Not run: an earlier tool call of the same turn was not approved in time.",
    "after_stop": "Not run: the user stopped the answer before this tool call ran.",
    "after_shutdown": "Not run: the bot restarted before this tool call ran.",
}


class _Message(BaseModel):
    exclude_from_context: bool = False


class UserMessage(_Message):
    """A person's message to the bot."""

    kind: Literal["user"] = "user"
    text: str
    author_id: int | None = None
    author_name: str | None = None
    files: list[FilePart] = Field(default_factory=list)
    quotes: list[QuotePart] = Field(default_factory=list)


class ToolCall(BaseModel):
    """A call the model asked for; arguments stay the raw JSON text the model sent."""

    id: str
    name: str
    arguments: str


class AssistantMessage(_Message):
    """The model's text and the tool calls it made in one round."""

    kind: Literal["assistant"] = "assistant"
    text: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)


class ToolResultMessage(_Message):
    """The result of a tool call that ran (or failed validation)."""

    kind: Literal["tool_result"] = "tool_result"
    call_id: str
    name: str
    content: str
    is_error: bool = False
    # The answer carries words from outside (a web page, a plugin, a note): fenced for the model.
    untrusted: Untrusted | None = None


class ToolRejectedMessage(_Message):
    """A tool call that did not run to completion, and why."""

    kind: Literal["tool_rejected"] = "tool_rejected"
    call_id: str
    name: str
    reason: RejectionReason
    detail: str | None = None
    partial: Any = None


class SummaryMessage(_Message):
    """A summary standing in for older turns that left the context window."""

    kind: Literal["summary"] = "summary"
    text: str
    covers_until: int = 0


class NoticeMessage(_Message):
    """Something the bot told the user about the run itself (max steps, stopped...)."""

    kind: Literal["notice"] = "notice"
    text: str


Message = Annotated[
    UserMessage
    | AssistantMessage
    | ToolResultMessage
    | ToolRejectedMessage
    | SummaryMessage
    | NoticeMessage,
    Field(discriminator="kind"),
]

MESSAGE_ADAPTER: TypeAdapter[Message] = TypeAdapter(Message)


def dump(message: Message) -> str:
    """JSON text for storage."""
    return message.model_dump_json()


def load(payload: str) -> Message:
    """The typed message stored as payload."""
    return MESSAGE_ADAPTER.validate_json(payload)


def rejection_content(message: ToolRejectedMessage) -> str:
    """What the model reads for a rejected call: partial output, then the reason."""
    parts: list[str] = []
    if message.partial is not None:
        parts.append(
            "Partial result: " + json.dumps(message.partial, ensure_ascii=False, default=str)
        )
    parts.append(REJECTION_TEXT[message.reason])
    if message.detail:
        parts.append(f"Reason given: {message.detail}")
    return "\n".join(parts)


# The fence of each kind of tool answer from outside.
_RESULT_TAG: dict[Untrusted, str] = {
    "quote": "data",
    "speaker": "data",
    "file": "file",
    "note": "notes",
    "web": "web",
    "plugin": "data",
}


# How the files and quotes a user turn carries read to the model.

# What the model reads when a referred-to message could not be read.
_MISSING_TEXT: dict[MissingReason, str] = {
    "deleted": "that message was deleted, so its content is unknown",
    "no_access": "the bot may not read that message, so its content is unknown",
    "unavailable": "Discord did not return that message, so its content is unknown",
}
_RELATION_TAG: dict[QuoteRelation, str] = {
    "reply": "replied_to",
    "thread_starter": "thread_starter",
}


@dataclass
class _Images:
    """The run's images by key, and those attached to this turn so far, in order."""

    available: Mapping[str, str]
    attached: list[str] = field(default_factory=list)

    def attach(self, key: str | None) -> int | None:
        """Attach the image and return its number, or None when the run does not have it."""
        if key is None or key not in self.available:
            return None
        self.attached.append(self.available[key])
        return len(self.attached)


def _render_file(part: FilePart, images: _Images) -> str:
    if part.kind == "text" and part.text is not None:
        if part.note:
            # What was left out follows the text, with room made for it in the fence.
            said = f"\n\n({part.note})"
            return fence("file", part.text + said, limit=MAX_CHARS + len(said), name=part.name)
        return fence("file", part.text, name=part.name)
    # Its name is someone's words too: even an image's stand-in is fenced.
    number = images.attach(part.image_key) if part.kind == "image" else None
    if number is not None:
        return fence("file", f"(image {number} attached below)", name=part.name)
    if part.note:
        return fence("file", f"(not shown to you: {part.note})", name=part.name)
    return fence("file", "(an image)" if part.kind == "image" else "(a file)", name=part.name)


def _render_quote(quote: QuotePart, images: _Images) -> str:
    tag = _RELATION_TAG[quote.relation]
    if quote.missing is not None:
        return fence(tag, f"({_MISSING_TEXT[quote.missing]})")
    if quote.earlier:
        return fence(tag, "(the message quoted earlier in this conversation)", by=quote.author_name)
    # The quote's own files are fences of their own after it: never one inside another.
    inner = fence(tag, quote.text or "(no text)", by=quote.author_name)
    return "\n".join([inner, *(_render_file(part, images) for part in quote.files)])


def user_content(
    text: str,
    files: list[FilePart],
    quotes: list[QuotePart],
    images: Mapping[str, str],
) -> str | list[dict[str, Any]]:
    """The user turn as the model reads it: plain text, or text plus image parts."""
    attached = _Images(images)
    sections = [_render_quote(quote, attached) for quote in quotes]
    if text:
        sections.append(text)
    sections += [_render_file(part, attached) for part in files]
    rendered = "\n\n".join(sections)
    if not attached.attached:
        return rendered
    return [
        {"type": "text", "text": rendered},
        *({"type": "image_url", "image_url": {"url": url}} for url in attached.attached),
    ]


def _convert(
    message: Message, images: Mapping[str, str], asker: int | None
) -> dict[str, Any] | None:
    match message:
        case UserMessage():
            text = message.text or "(no text, only what is attached)"
            if asker is not None and message.author_id not in (None, asker):
                # Another speaker of a shared thread: their words are data for this asker.
                text = fence("said", text, by=message.author_name)
            elif message.author_name:
                text = f"{attribute(message.author_name)}: {text}"
            else:
                text = message.text
            content = user_content(text, message.files, message.quotes, images)
            return {"role": "user", "content": content}
        case AssistantMessage():
            converted: dict[str, Any] = {"role": "assistant", "content": message.text or None}
            if message.tool_calls:
                converted["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments},
                    }
                    for call in message.tool_calls
                ]
            elif not message.text:
                return None
            return converted
        case ToolResultMessage():
            content = message.content
            if message.untrusted is not None:
                content = fence(_RESULT_TAG[message.untrusted], content)
            return {"role": "tool", "tool_call_id": message.call_id, "content": content}
        case ToolRejectedMessage():
            return {
                "role": "tool",
                "tool_call_id": message.call_id,
                "content": rejection_content(message),
            }
        case SummaryMessage():
            return {
                "role": "user",
                "content": f"<summary>\n{message.text}\n</summary>",
            }
        case NoticeMessage():
            return {"role": "user", "content": f"(notice from the bot: {message.text})"}
        case _:
            assert_never(message)


def to_llm(
    messages: list[Message], images: Mapping[str, str] | None = None, asker: int | None = None
) -> list[dict[str, Any]]:
    """Flatten typed messages into the chat format, keeping tool calls and results paired;
    images (key -> data URL) are the current run's, so only its own turn shows them; the
    messages of anyone but asker (the member the run answers) are fenced as data."""
    converted: list[dict[str, Any]] = []
    pending: dict[str, str] = {}
    for message in messages:
        if message.exclude_from_context:
            continue
        item = _convert(message, images or {}, asker)
        if item is None:
            continue
        if item["role"] == "tool":
            if item["tool_call_id"] not in pending:
                # Its assistant turn fell out of the window; a lone tool message is invalid.
                continue
            pending.pop(item["tool_call_id"])
        else:
            converted += _never_finished(pending)
            pending.clear()
        converted.append(item)
        for call in item.get("tool_calls", []):
            pending[call["id"]] = call["function"]["name"]
    return converted + _never_finished(pending)


def _never_finished(pending: dict[str, str]) -> list[dict[str, Any]]:
    """Providers reject a tool call without a result: results that say it never finished."""
    return [
        {"role": "tool", "tool_call_id": call_id, "content": REJECTION_TEXT["invalidated"]}
        for call_id in pending
    ]
