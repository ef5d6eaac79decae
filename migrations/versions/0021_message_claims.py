"""claims on incoming messages (answered once by any number of processes); the untrusted
words an approval's turn had read

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-07
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.storage.engine

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "message_claims",
        sa.Column("key", sa.String(length=100), nullable=False),
        sa.Column("holder", sa.String(length=64), nullable=False),
        sa.Column("expires_at", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_message_claims")),
    )
    op.create_index(
        "ix_message_claims_expires_at", "message_claims", ["expires_at"], unique=False
    )
    with op.batch_alter_table("approval_requests") as batch:
        batch.add_column(sa.Column("untrusted", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("approval_requests") as batch:
        batch.drop_column("untrusted")
    op.drop_index("ix_message_claims_expires_at", table_name="message_claims")
    op.drop_table("message_claims")
