"""The servers the bot is in (joined, left) and each server's own settings."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from bot.storage.engine import Base, UTCDateTime


class ServerRow(Base):
    """A server the bot joined; left_at is set while it is out (its data waits for deletion)."""

    __tablename__ = "servers"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime())
    left_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    welcomed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class ServerSettingsRow(Base):
    """What a server's admins changed: a JSON object of setting → value; absent keys are the
    environment's defaults. version grows with every change, so processes see what changed."""

    __tablename__ = "server_settings"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    values: Mapped[str] = mapped_column(Text)
    version: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_by: Mapped[int | None] = mapped_column(BigInteger)


class ScheduledPostRow(Base):
    """When a server's scheduled post (daily weather, tips) last fell due and was handled."""

    __tablename__ = "scheduled_posts"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    last_run_at: Mapped[datetime] = mapped_column(UTCDateTime())
