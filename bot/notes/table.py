"""The server notebook: notes members asked Otomo to keep, with who wrote them and when."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from bot.storage.engine import Base, UTCDateTime

NOTE_TITLE_CHARS = 100


class Note(Base):
    """One note of a server's shared notebook, with its search terms computed when written."""

    __tablename__ = "notes"
    __table_args__ = (Index("ix_notes_guild_id_id", "guild_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    channel_id: Mapped[int] = mapped_column(BigInteger)
    title: Mapped[str] = mapped_column(String(NOTE_TITLE_CHARS))
    body: Mapped[str] = mapped_column(Text)
    # Search term → weighted count, so a search never tokenises stored notes again.
    terms: Mapped[dict[str, Any]] = mapped_column(JSON)
    author_id: Mapped[int] = mapped_column(BigInteger)
    author_name: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_by_name: Mapped[str | None] = mapped_column(String(100))
