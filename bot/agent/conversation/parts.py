"""What a user message carries besides its text, and what a mention shares as plain data: files
and the messages it refers to.

Stored with the message; images are kept as a placeholder only, their bytes live in the run.
How the model reads them is messages.py's `to_llm`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field


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


FileKind = Literal["text", "image", "skipped"]
QuoteRelation = Literal["reply", "thread_starter"]
MissingReason = Literal["deleted", "no_access", "unavailable"]


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
