"""the model each server chose with /model

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.storage.engine

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "guild_models",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("chosen_by", sa.BigInteger(), nullable=False),
        sa.Column("chosen_at", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", name=op.f("pk_guild_models")),
    )


def downgrade() -> None:
    op.drop_table("guild_models")
