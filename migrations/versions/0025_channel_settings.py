"""a channel's own persona and its listening cool-down

Revision ID: 0025
Revises: 0023
Create Date: 2026-12-07
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.storage.engine

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "channel_settings",
        sa.Column("channel_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("persona", sa.Text(), nullable=False),
        sa.Column("heard_at", bot.storage.engine.UTCDateTime(), nullable=True),
        sa.Column("updated_at", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.Column("updated_by", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("channel_id", name=op.f("pk_channel_settings")),
    )
    op.create_index("ix_channel_settings_guild_id", "channel_settings", ["guild_id"])


def downgrade() -> None:
    op.drop_table("channel_settings")
