"""Tools registered by other processes: one row per tool name, shared by every bot process."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, Float, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from bot.storage.base import Base, UTCDateTime


class ExternalToolRow(Base):
    """A registration from `POST /api/tools/register`, with its health and admin switch."""

    __tablename__ = "external_tools"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    description: Mapped[str] = mapped_column(Text)
    parameters: Mapped[dict[str, Any]] = mapped_column(JSON)
    callback_url: Mapped[str] = mapped_column(String(2048))
    source: Mapped[str] = mapped_column(String(100), index=True)
    timeout_seconds: Mapped[float] = mapped_column(Float)
    # Handler names the tool is offered in; None offers it in every handler.
    handlers: Mapped[list[str] | None] = mapped_column(JSON)
    # The one guild that may use the tool; None allows every guild, DMs and the console.
    guild_id: Mapped[int | None] = mapped_column(BigInteger)
    available: Mapped[bool] = mapped_column(Boolean)
    disabled: Mapped[bool] = mapped_column(Boolean)
    last_error: Mapped[str | None] = mapped_column(Text)
    registered_at: Mapped[datetime] = mapped_column(UTCDateTime())
    checked_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
