"""Claims on incoming messages and commands: the first process to insert the key answers."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, String
from sqlalchemy.orm import Mapped, mapped_column

from bot.storage.engine import Base, UTCDateTime


class MessageClaim(Base):
    """One incoming message (or edit, or slash command) answered by one process."""

    __tablename__ = "message_claims"
    __table_args__ = (Index("ix_message_claims_expires_at", "expires_at"),)

    # "message:<id>", "edit:<id>:<edited at>", "command:<interaction id>".
    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    holder: Mapped[str] = mapped_column(String(64))
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
