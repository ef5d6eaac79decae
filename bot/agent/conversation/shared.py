"""What a member shares with a mention, as plain data: files and the messages referred to.

The Discord layer fills these in; the agent decides what the model gets (see attachments.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.agent.conversation.parts import MissingReason, QuoteRelation


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


@dataclass(frozen=True)
class Shared:
    """Everything a mention brings besides its own text."""

    files: tuple[SharedFile, ...] = ()
    quotes: tuple[SharedMessage, ...] = ()

    @property
    def empty(self) -> bool:
        """Nothing attached and nothing referred to."""
        return not self.files and not self.quotes
