"""plugin credentials for the tools API, and which one registered each tool

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-02
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.storage.engine

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "tool_credentials",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(length=100), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tool_credentials")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_tool_credentials_token_hash")),
    )
    op.create_index(
        op.f("ix_tool_credentials_source"), "tool_credentials", ["source"], unique=False
    )
    with op.batch_alter_table("external_tools") as batch:
        batch.add_column(sa.Column("credential_id", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("external_tools") as batch:
        batch.drop_column("credential_id")
    op.drop_index(op.f("ix_tool_credentials_source"), table_name="tool_credentials")
    op.drop_table("tool_credentials")
