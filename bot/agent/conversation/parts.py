"""What a user message carries besides its text, and what a mention shares as plain data: files
and the messages it refers to.

Stored with the message; images are kept as a placeholder only, their bytes live in the run.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field

from bot.agent.conversation.fences import MAX_CHARS, fence


@dataclass(frozen=True)
class SharedFile:
    """An attachment, not downloaded yet: `read` fetches its bytes when they are needed."""

    key: str
    name: str
    content_type: str | None
    size: int
    read: Callable[[], Awaitable[bytes]]


@dataclass(frozen=True)
class SharedMessage:
    """Another message the mention refers to (replied to, or the thread's first message)."""

    relation: QuoteRelation
    message_id: int | None
    author_name: str | None = None
    text: str = ""
    files: tuple[SharedFile, ...] = ()
    missing: MissingReason | None = None
    author_id: int | None = None


@dataclass(frozen=True)
class Shared:
    """Everything a mention brings besides its own text."""

    files: tuple[SharedFile, ...] = ()
    quotes: tuple[SharedMessage, ...] = ()

    @property
    def empty(self) -> bool:
        """Nothing attached and nothing referred to."""
        return not self.files and not self.quotes


FileKind = Literal["text", "image", "skipped"]
QuoteRelation = Literal["reply", "thread_starter"]
MissingReason = Literal["deleted", "no_access", "unavailable"]

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


class FilePart(BaseModel):
    """An attachment as the conversation remembers it: text, an image placeholder, or a skip."""

    name: str
    kind: FileKind
    text: str | None = None
    # Finds the image's bytes among the run's images; absent later, so history has no bytes.
    image_key: str | None = None
    # Why the model does not get the file, or what part of its text it does not get (said to
    # the model, not to the member).
    note: str | None = None


class QuotePart(BaseModel):
    """A message the member's message refers to: the one replied to, or the thread's start."""

    relation: QuoteRelation
    message_id: int | None = None
    author_name: str | None = None
    # Who wrote it: a member quoting their own words brings nothing untrusted.
    author_id: int | None = None
    text: str = ""
    files: list[FilePart] = Field(default_factory=list)
    missing: MissingReason | None = None
    # Already quoted in the context window: only the reference is repeated.
    earlier: bool = False


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
