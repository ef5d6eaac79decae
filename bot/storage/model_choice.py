"""The model each server's admins chose with /model."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, String
from sqlalchemy.orm import Mapped, mapped_column

from bot.storage.engine import Base, UTCDateTime

MODEL_NAME_CHARS = 200


class GuildModel(Base):
    """A server's chosen model; absent row means LLM_MODEL."""

    __tablename__ = "guild_models"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    model: Mapped[str] = mapped_column(String(MODEL_NAME_CHARS))
    chosen_by: Mapped[int] = mapped_column(BigInteger)
    chosen_at: Mapped[datetime] = mapped_column(UTCDateTime())
