"""Tools registered by other processes: one row per tool name, shared by every bot process,
and the plugins' own credentials."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, Float, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from bot.storage.engine import Base, UTCDateTime


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
    # The plugin credential it was registered with; None for the shared TOOLS_API_TOKEN.
    credential_id: Mapped[int | None] = mapped_column(Integer)


class ToolCredentialRow(Base):
    """A plugin's own token for the tools API, stored as its SHA-256; it registers only
    under its source, and trust in the source is trust in this credential."""

    __tablename__ = "tool_credentials"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    source: Mapped[str] = mapped_column(String(100), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
