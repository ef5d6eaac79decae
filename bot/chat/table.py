"""Tables of the chit-chat features: the word pool and the history of posted tips."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Float, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from bot.storage.engine import Base, UTCDateTime

WORD_MAX_CHARS = 64
# The server of word-pool rows from before servers had their own (seen by every server).
LEGACY_GUILD = 0


class WordPoolEntry(Base):
    """A word people used: its score as of last_seen; the score halves every few days after."""

    __tablename__ = "word_pool"

    # The server whose members used the word (LEGACY_GUILD: from before, seen everywhere).
    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    word: Mapped[str] = mapped_column(String(WORD_MAX_CHARS), primary_key=True)
    score: Mapped[float] = mapped_column(Float)
    last_seen: Mapped[datetime] = mapped_column(UTCDateTime())


class TipRecord(Base):
    """A posted どうでもいいTips; the next one avoids its topic, even after a restart."""

    __tablename__ = "tips_history"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    # The server it was posted in; None for tips from before servers had their own.
    guild_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    topic: Mapped[str] = mapped_column(String(WORD_MAX_CHARS))
    text: Mapped[str] = mapped_column(Text)
    channel_id: Mapped[int | None] = mapped_column(BigInteger)
    posted_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)
