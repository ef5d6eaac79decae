"""reminders for another member or a channel, with the member's consent and block list

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.storage.engine

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Reminders made before: NULL everywhere (the asker's own, no consent needed).
    with op.batch_alter_table("reminders") as batch:
        batch.add_column(sa.Column("target_user_id", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("consent", sa.String(length=16), nullable=True))
        batch.add_column(sa.Column("to_channel", sa.Boolean(), nullable=True))
    op.create_table(
        "reminder_blocks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("blocked_user_id", sa.BigInteger(), nullable=False),
        sa.Column("created_at", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reminder_blocks")),
        sa.UniqueConstraint(
            "guild_id", "user_id", "blocked_user_id", name=op.f("uq_reminder_blocks_guild_id")
        ),
    )


def downgrade() -> None:
    op.drop_table("reminder_blocks")
    with op.batch_alter_table("reminders") as batch:
        batch.drop_column("to_channel")
        batch.drop_column("consent")
        batch.drop_column("target_user_id")
