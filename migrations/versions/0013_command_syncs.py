"""command_syncs: the hash of the slash-command tree last synced, per application and scope

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-02
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.storage.engine

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "command_syncs",
        sa.Column("application_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("scope", sa.String(length=32), nullable=False),
        sa.Column("tree_hash", sa.String(length=64), nullable=False),
        sa.Column("commands", sa.Integer(), nullable=False),
        sa.Column("synced_at", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("application_id", "scope", name=op.f("pk_command_syncs")),
    )


def downgrade() -> None:
    op.drop_table("command_syncs")
