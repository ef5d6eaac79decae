"""The channel_settings table: a channel's own persona and when Otomo last answered there
unasked (the listening cool-down, shared by every process)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Index, Text
from sqlalchemy.orm import Mapped, mapped_column

from bot.storage.engine import Base, UTCDateTime


class ChannelSetting(Base):
    """One channel (or thread) of a server with something of its own."""

    __tablename__ = "channel_settings"
    __table_args__ = (Index("ix_channel_settings_guild_id", "guild_id"),)

    channel_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    persona: Mapped[str] = mapped_column(Text, default="")
    # The last answer given in this channel without a mention (None: never).
    heard_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_by: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
