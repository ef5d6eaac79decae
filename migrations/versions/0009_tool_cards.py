"""tool card messages

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.storage.engine

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "tool_card_messages",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("conversation_key", sa.String(length=100), nullable=False),
        sa.Column("call_id", sa.String(length=100), nullable=False),
        sa.Column("tool_name", sa.String(length=64), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=False),
        sa.Column("created_at", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tool_card_messages")),
        sa.UniqueConstraint(
            "conversation_key",
            "call_id",
            name=op.f("uq_tool_card_messages_conversation_key"),
        ),
    )


def downgrade() -> None:
    op.drop_table("tool_card_messages")
