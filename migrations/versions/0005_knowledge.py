"""knowledge base cache and change log

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-29
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.storage.engine

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "kb_documents",
        sa.Column("path", sa.String(length=512), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("analyzer_version", sa.Integer(), nullable=False),
        sa.Column("analysis", sa.JSON(), nullable=False),
        sa.Column("indexed_at", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("path", name=op.f("pk_kb_documents")),
    )
    op.create_table(
        "kb_changes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("path", sa.String(length=512), nullable=False),
        sa.Column("action", sa.String(length=16), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("user_name", sa.String(length=100), nullable=False),
        sa.Column("size_before", sa.Integer(), nullable=True),
        sa.Column("size_after", sa.Integer(), nullable=True),
        sa.Column("changed_at", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_kb_changes")),
    )
    op.create_index(op.f("ix_kb_changes_path"), "kb_changes", ["path"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_kb_changes_path"), table_name="kb_changes")
    op.drop_table("kb_changes")
    op.drop_table("kb_documents")
