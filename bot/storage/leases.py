"""Leases on work that must run once per bot, not once per process (the daily post, sweeps)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from bot.storage.engine import Base, UTCDateTime


class BotLeaseRow(Base):
    """Who runs the once-per-bot jobs, until when (renewed while the holder is alive)."""

    __tablename__ = "bot_leases"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    holder: Mapped[str] = mapped_column(String(64))
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
