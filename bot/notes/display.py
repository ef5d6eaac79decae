"""What the notebook hands out: notes as people and the model see them, pages, search hits."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from bot.notes.table import Note


class NoteError(Exception):
    """A note request that cannot be done; the message says why and what to do instead."""


@dataclass(frozen=True, slots=True)
class NoteView:
    """A note as people and the model see it."""

    id: int
    guild_id: int
    channel_id: int
    title: str
    body: str
    author_id: int
    author_name: str
    created_at: datetime
    updated_at: datetime
    updated_by_name: str | None

    @classmethod
    def of(cls, row: Note) -> NoteView:
        """The view of a stored note."""
        return cls(
            row.id,
            row.guild_id,
            row.channel_id,
            row.title,
            row.body,
            row.author_id,
            row.author_name,
            row.created_at,
            row.updated_at,
            row.updated_by_name,
        )

    @property
    def label(self) -> str:
        """How a note is named and cited: `#12「買い出しリスト」`."""
        return f"#{self.id}「{self.title}」"

    def to_output(self, tz: ZoneInfo, *, with_body: bool = True) -> dict[str, Any]:
        """The note for the model, times in the reader's zone."""
        out: dict[str, Any] = {
            "id": self.id,
            "title": self.title,
            "author": self.author_name,
            "written": self.created_at.astimezone(tz).strftime("%Y-%m-%d %H:%M"),
        }
        if self.updated_by_name is not None:
            out["edited"] = self.updated_at.astimezone(tz).strftime("%Y-%m-%d %H:%M")
            out["edited_by"] = self.updated_by_name
        if with_body:
            out["text"] = self.body
        return out


@dataclass(frozen=True, slots=True)
class NoteHit:
    """A note matching a search, with an excerpt around the matched words."""

    note: NoteView
    relevance: float
    snippet: str


@dataclass(frozen=True, slots=True)
class NotePage:
    """One page of a server's notes, newest first."""

    notes: list[NoteView]
    total: int
    page: int
    pages: int
