"""server notebook

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.storage.engine

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "notes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("title", sa.String(length=100), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("terms", sa.JSON(), nullable=False),
        sa.Column("author_id", sa.BigInteger(), nullable=False),
        sa.Column("author_name", sa.String(length=100), nullable=False),
        sa.Column("created_at", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.Column("updated_at", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.Column("updated_by_name", sa.String(length=100), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_notes")),
    )
    op.create_index("ix_notes_guild_id_id", "notes", ["guild_id", "id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_notes_guild_id_id", table_name="notes")
    op.drop_table("notes")
