"""The tasks tables: each task (prompt, schedule, destination, tools) and its runs' history."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from bot.storage.engine import Base, UTCDateTime


class TaskState(StrEnum):
    """Where a task is in its life."""

    ACTIVE = "active"
    PAUSED = "paused"
    # A one-time task that ran, or a repeat whose count or end date passed.
    FINISHED = "finished"


class RunStatus(StrEnum):
    """What became of one run: running (claimed), then one of the outcomes."""

    RUNNING = "running"
    ON_TIME = "on_time"
    LATE = "late"
    SKIPPED = "skipped"
    FAILED = "failed"
    # A tool of the run needs a person: the card waits for the owner.
    WAITING = "waiting"


class Task(Base):
    """One scheduled task of a server (or of a member's DMs: guild_id NULL)."""

    __tablename__ = "tasks"
    __table_args__ = (
        # "What is due next" walks this index in order.
        Index("ix_tasks_state_next_run_at", "state", "next_run_at"),
        Index("ix_tasks_guild_id_id", "guild_id", "id"),
        Index("ix_tasks_owner_id", "owner_id"),
        CheckConstraint("state IN ('active', 'paused', 'finished')", name="state"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    guild_id: Mapped[int | None] = mapped_column(BigInteger)
    owner_id: Mapped[int] = mapped_column(BigInteger)
    owner_name: Mapped[str] = mapped_column(String(100))
    # Where the answer is posted: a channel or thread of the server, or the owner's DMs.
    channel_id: Mapped[int] = mapped_column(BigInteger)
    to_dm: Mapped[bool] = mapped_column(default=False)
    prompt: Mapped[str] = mapped_column(Text)
    # The language the task was asked in (ja/en): its posts speak it.
    language: Mapped[str] = mapped_column(String(8))
    # The creator's IANA zone: the schedule's wall-clock times live in it (DST-safe).
    timezone: Mapped[str] = mapped_column(String(64))
    # JSON of bot.schedule.repeat.RepeatRule (anchored); NULL for a one-time task.
    repeat: Mapped[str | None] = mapped_column(Text)
    # The tools a run may offer the model, named at creation.
    tools: Mapped[list[Any]] = mapped_column(JSON)
    state: Mapped[str] = mapped_column(String(16))
    next_run_at: Mapped[datetime] = mapped_column(UTCDateTime())
    occurrence: Mapped[int] = mapped_column(Integer, default=1)
    failures_in_row: Mapped[int] = mapped_column(Integer, default=0)
    # Why the task paused itself (three failures), for the listing.
    paused_reason: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())


class TaskRun(Base):
    """One run of a task: claimed once per due time (the unique key), then its outcome."""

    __tablename__ = "task_runs"
    __table_args__ = (
        # One scheduled run per due time, whoever claims it ("run now" runs apart).
        UniqueConstraint("task_id", "due_at", "manual", name="uq_task_runs_task_id_due_at"),
        # A crashed process's runs are found by their lease running out.
        Index("ix_task_runs_status_lease_until", "status", "lease_until"),
        Index("ix_task_runs_guild_id_finished_at", "guild_id", "finished_at"),
        CheckConstraint(
            "status IN ('running', 'on_time', 'late', 'skipped', 'failed', 'waiting')",
            name="status",
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    task_id: Mapped[int] = mapped_column(ForeignKey("tasks.id", ondelete="CASCADE"))
    guild_id: Mapped[int | None] = mapped_column(BigInteger)
    due_at: Mapped[datetime] = mapped_column(UTCDateTime())
    # "Run now" runs are claimed like any other; they are never late.
    manual: Mapped[bool] = mapped_column(default=False)
    status: Mapped[str] = mapped_column(String(16))
    claimed_by: Mapped[str | None] = mapped_column(String(64))
    lease_until: Mapped[datetime | None] = mapped_column(UTCDateTime())
    started_at: Mapped[datetime] = mapped_column(UTCDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # How late the post went out (seconds), for the history and the lateness histogram.
    late_seconds: Mapped[int | None] = mapped_column(Integer)
    message_id: Mapped[int | None] = mapped_column(BigInteger)
    # Why it was skipped or failed, in a few words (shown in the history).
    reason: Mapped[str | None] = mapped_column(Text)
