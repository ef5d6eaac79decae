"""scheduled tasks and the history of their runs

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-07
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.storage.engine

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "tasks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=True),
        sa.Column("owner_id", sa.BigInteger(), nullable=False),
        sa.Column("owner_name", sa.String(length=100), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("to_dm", sa.Boolean(), nullable=False),
        sa.Column("prompt", sa.Text(), nullable=False),
        sa.Column("language", sa.String(length=8), nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("repeat", sa.Text(), nullable=True),
        sa.Column("tools", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("next_run_at", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.Column("occurrence", sa.Integer(), nullable=False),
        sa.Column("failures_in_row", sa.Integer(), nullable=False),
        sa.Column("paused_reason", sa.Text(), nullable=True),
        sa.Column("created_at", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.Column("updated_at", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.CheckConstraint(
            "state IN ('active', 'paused', 'finished')", name=op.f("ck_tasks_state")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tasks")),
    )
    op.create_index("ix_tasks_guild_id_id", "tasks", ["guild_id", "id"])
    op.create_index("ix_tasks_owner_id", "tasks", ["owner_id"])
    op.create_index("ix_tasks_state_next_run_at", "tasks", ["state", "next_run_at"])
    op.create_table(
        "task_runs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("task_id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=True),
        sa.Column("due_at", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.Column("manual", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("claimed_by", sa.String(length=64), nullable=True),
        sa.Column("lease_until", bot.storage.engine.UTCDateTime(), nullable=True),
        sa.Column("started_at", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.Column("finished_at", bot.storage.engine.UTCDateTime(), nullable=True),
        sa.Column("late_seconds", sa.Integer(), nullable=True),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.CheckConstraint(
            "status IN ('running', 'on_time', 'late', 'skipped', 'failed', 'waiting')",
            name=op.f("ck_task_runs_status"),
        ),
        sa.ForeignKeyConstraint(
            ["task_id"],
            ["tasks.id"],
            name=op.f("fk_task_runs_task_id_tasks"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_task_runs")),
        sa.UniqueConstraint("task_id", "due_at", "manual", name="uq_task_runs_task_id_due_at"),
    )
    op.create_index(
        "ix_task_runs_guild_id_finished_at", "task_runs", ["guild_id", "finished_at"]
    )
    op.create_index("ix_task_runs_status_lease_until", "task_runs", ["status", "lease_until"])


def downgrade() -> None:
    op.drop_table("task_runs")
    op.drop_table("tasks")
