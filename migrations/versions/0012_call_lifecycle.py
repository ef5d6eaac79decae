"""agent: the run request and resume claim on approvals, card finality, tool runs in progress

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.storage.engine

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("approval_requests") as batch:
        batch.add_column(sa.Column("run_request", sa.Text(), nullable=True))
        batch.add_column(sa.Column("resumed_at", bot.storage.engine.UTCDateTime(), nullable=True))
    with op.batch_alter_table("tool_card_messages") as batch:
        batch.add_column(sa.Column("executor", sa.String(length=100), nullable=True))
        batch.add_column(sa.Column("final_at", bot.storage.engine.UTCDateTime(), nullable=True))
    op.create_index(
        "ix_tool_card_messages_final_at_created_at",
        "tool_card_messages",
        ["final_at", "created_at"],
    )
    op.create_table(
        "tool_runs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("conversation_key", sa.String(length=100), nullable=False),
        sa.Column("call_id", sa.String(length=100), nullable=False),
        sa.Column("tool_name", sa.String(length=64), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("executor", sa.String(length=100), nullable=False),
        sa.Column("started_at", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.Column("lease_until", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.Column("finished_at", bot.storage.engine.UTCDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tool_runs")),
        sa.UniqueConstraint(
            "conversation_key", "call_id", name=op.f("uq_tool_runs_conversation_key")
        ),
    )
    op.create_index("ix_tool_runs_finished_at", "tool_runs", ["finished_at"])


def downgrade() -> None:
    op.drop_index("ix_tool_runs_finished_at", table_name="tool_runs")
    op.drop_table("tool_runs")
    op.drop_index("ix_tool_card_messages_final_at_created_at", table_name="tool_card_messages")
    with op.batch_alter_table("tool_card_messages") as batch:
        batch.drop_column("final_at")
        batch.drop_column("executor")
    with op.batch_alter_table("approval_requests") as batch:
        batch.drop_column("resumed_at")
        batch.drop_column("run_request")
