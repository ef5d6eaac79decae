"""word pool and tips history

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-29
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.storage.engine

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "word_pool",
        sa.Column("word", sa.String(length=64), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("last_seen", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("word", name=op.f("pk_word_pool")),
    )
    op.create_table(
        "tips_history",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("topic", sa.String(length=64), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=True),
        sa.Column("posted_at", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tips_history")),
    )
    op.create_index(
        op.f("ix_tips_history_posted_at"), "tips_history", ["posted_at"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_tips_history_posted_at"), table_name="tips_history")
    op.drop_table("tips_history")
    op.drop_table("word_pool")
