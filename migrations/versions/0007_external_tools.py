"""external tools registered over the tools API

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.storage.engine

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "external_tools",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("parameters", sa.JSON(), nullable=False),
        sa.Column("callback_url", sa.String(length=2048), nullable=False),
        sa.Column("source", sa.String(length=100), nullable=False),
        sa.Column("timeout_seconds", sa.Float(), nullable=False),
        sa.Column("handlers", sa.JSON(), nullable=True),
        sa.Column("guild_id", sa.BigInteger(), nullable=True),
        sa.Column("available", sa.Boolean(), nullable=False),
        sa.Column("disabled", sa.Boolean(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("registered_at", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.Column("checked_at", bot.storage.engine.UTCDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_external_tools")),
    )
    op.create_index(
        op.f("ix_external_tools_source"), "external_tools", ["source"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_external_tools_source"), table_name="external_tools")
    op.drop_table("external_tools")
