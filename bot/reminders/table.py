"""The reminders table: the truth about every reminder; the scheduler only caches its next wake."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from bot.storage.engine import Base, UTCDateTime


class ReminderState(StrEnum):
    """Where a reminder is in its life."""

    PENDING = "pending"
    DELIVERED = "delivered"
    CANCELLED = "cancelled"
    FAILED = "failed"


class Consent(StrEnum):
    """Where a reminder for another member stands with them (NULL: none needed)."""

    # The request to the member is still to be posted (the delivery engine posts it).
    ASK = "ask"
    # Posted; waiting for their click. At the due time without one it expires, undelivered.
    ASKED = "asked"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    EXPIRED = "expired"


class Reminder(Base):
    """One reminder (a repeating one is one row that advances its occurrence)."""

    __tablename__ = "reminders"
    __table_args__ = (
        # The dispatcher's "what is due next" query walks this index in order.
        Index("ix_reminders_state_next_attempt_at", "state", "next_attempt_at"),
        # Finding when a claim lease runs out (a crashed process's rows become claimable again).
        Index("ix_reminders_state_lease_until", "state", "lease_until"),
        # Per-user listing and the per-user limit on pending reminders.
        Index("ix_reminders_user_id_state", "user_id", "state"),
        # A restarted process reads the last seconds' posts to resume its pacing.
        Index("ix_reminders_delivered_at", "delivered_at"),
        CheckConstraint("state IN ('pending', 'delivered', 'cancelled', 'failed')", name="state"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    guild_id: Mapped[int | None] = mapped_column(BigInteger)
    channel_id: Mapped[int] = mapped_column(BigInteger)
    user_id: Mapped[int] = mapped_column(BigInteger)
    user_display_name: Mapped[str] = mapped_column(String(100))
    content: Mapped[str] = mapped_column(Text)
    # The current occurrence's due instant; a retry moves next_attempt_at, never due_at.
    due_at: Mapped[datetime] = mapped_column(UTCDateTime())
    # IANA zone the repeat is computed in (wall-clock times survive DST changes).
    timezone: Mapped[str] = mapped_column(String(64))
    # JSON of bot.schedule.repeat.RepeatRule; NULL for a one-time reminder.
    repeat: Mapped[str | None] = mapped_column(Text)
    occurrence: Mapped[int] = mapped_column(Integer)
    state: Mapped[str] = mapped_column(String(16))
    # Rejected deliveries (403/404) of the current occurrence; 5 of them fail the reminder.
    attempts: Mapped[int] = mapped_column(Integer)
    # Transient failures (429/5xx/network) of the current occurrence; capped, then one attempt.
    retries: Mapped[int] = mapped_column(Integer)
    last_error: Mapped[str | None] = mapped_column(Text)
    next_attempt_at: Mapped[datetime] = mapped_column(UTCDateTime())
    lease_until: Mapped[datetime | None] = mapped_column(UTCDateTime())
    claimed_by: Mapped[str | None] = mapped_column(String(64))
    delivered_message_id: Mapped[int | None] = mapped_column(BigInteger)
    origin_message_id: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    # The language of the message that asked for it (ja/en); NULL: the server's default.
    language: Mapped[str | None] = mapped_column(String(8))
    delivered_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    cancelled_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # A reminder for another member: who (user_id is who asked); NULL: for the asker.
    target_user_id: Mapped[int | None] = mapped_column(BigInteger)
    # The target member's consent (Consent); NULL: none needed (the asker's own, or a channel's).
    consent: Mapped[str | None] = mapped_column(String(16))
    # A reminder posted to another channel than the one it was asked in (no mention there).
    to_channel: Mapped[bool | None] = mapped_column(Boolean)


class ReminderBlock(Base):
    """A member stopped every reminder from another member in one server."""

    __tablename__ = "reminder_blocks"
    __table_args__ = (UniqueConstraint("guild_id", "user_id", "blocked_user_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    # Who blocked, and whose reminders they no longer take.
    user_id: Mapped[int] = mapped_column(BigInteger)
    blocked_user_id: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
