"""reminders

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.storage.engine

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "reminders",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=True),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("user_display_name", sa.String(length=100), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("due_at", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("repeat", sa.Text(), nullable=True),
        sa.Column("occurrence", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("retries", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("next_attempt_at", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.Column("lease_until", bot.storage.engine.UTCDateTime(), nullable=True),
        sa.Column("claimed_by", sa.String(length=64), nullable=True),
        sa.Column("delivered_message_id", sa.BigInteger(), nullable=True),
        sa.Column("origin_message_id", sa.BigInteger(), nullable=True),
        sa.Column("created_at", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.Column("delivered_at", bot.storage.engine.UTCDateTime(), nullable=True),
        sa.Column("cancelled_at", bot.storage.engine.UTCDateTime(), nullable=True),
        sa.CheckConstraint(
            "state IN ('pending', 'delivered', 'cancelled', 'failed')",
            name=op.f("ck_reminders_state"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reminders")),
    )
    op.create_index(
        op.f("ix_reminders_state_next_attempt_at"),
        "reminders",
        ["state", "next_attempt_at"],
        unique=False,
    )
    op.create_index(
        op.f("ix_reminders_state_lease_until"), "reminders", ["state", "lease_until"], unique=False
    )
    op.create_index(
        op.f("ix_reminders_user_id_state"), "reminders", ["user_id", "state"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_reminders_user_id_state"), table_name="reminders")
    op.drop_index(op.f("ix_reminders_state_lease_until"), table_name="reminders")
    op.drop_index(op.f("ix_reminders_state_next_attempt_at"), table_name="reminders")
    op.drop_table("reminders")
