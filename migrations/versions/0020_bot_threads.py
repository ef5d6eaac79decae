"""threads the bot opened for conversations; the language a reminder was asked in

Revision ID: 0020
Revises: 0016
Create Date: 2026-12-02
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.storage.engine

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "bot_threads",
        sa.Column("thread_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=True),
        sa.Column("parent_id", sa.BigInteger(), nullable=False),
        sa.Column("opened_by", sa.BigInteger(), nullable=False),
        sa.Column("opened_at", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("thread_id", name=op.f("pk_bot_threads")),
    )
    # Reminders made before: NULL, posted in the server's default language.
    with op.batch_alter_table("reminders") as batch:
        batch.add_column(sa.Column("language", sa.String(length=8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("reminders") as batch:
        batch.drop_column("language")
    op.drop_table("bot_threads")
