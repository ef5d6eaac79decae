"""Per-user preferences shared by every feature (time zone, language)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, String
from sqlalchemy.orm import Mapped, mapped_column

from bot.storage.engine import Base, UTCDateTime


class UserSettings(Base):
    """A Discord user's preferences; absent row means the bot's defaults."""

    __tablename__ = "user_settings"

    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    timezone: Mapped[str | None] = mapped_column(String(64))
    language: Mapped[str | None] = mapped_column(String(8))
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())
