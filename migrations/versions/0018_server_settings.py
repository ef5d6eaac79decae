"""servers, their settings and scheduled posts; the LLM call log records server and member

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-02
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.storage.engine

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "servers",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("joined_at", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.Column("left_at", bot.storage.engine.UTCDateTime(), nullable=True),
        sa.Column("welcomed_at", bot.storage.engine.UTCDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("guild_id", name=op.f("pk_servers")),
    )
    op.create_table(
        "server_settings",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("values", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("updated_at", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.Column("updated_by", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("guild_id", name=op.f("pk_server_settings")),
    )
    op.create_table(
        "scheduled_posts",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("last_run_at", bot.storage.engine.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", "kind", name=op.f("pk_scheduled_posts")),
    )
    with op.batch_alter_table("llm_calls") as batch:
        batch.add_column(sa.Column("guild_id", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("user_id", sa.BigInteger(), nullable=True))
        batch.create_index(
            "ix_llm_calls_guild_id_started_at", ["guild_id", "started_at"], unique=False
        )
    # Calls of a conversation that asked for an approval: that row says which server it was.
    op.execute(
        "UPDATE llm_calls SET guild_id = (SELECT MAX(a.guild_id) FROM approval_requests a "
        "WHERE a.conversation_key = llm_calls.conversation_key), user_id = (SELECT "
        "MAX(a.requester_id) FROM approval_requests a WHERE a.conversation_key = "
        "llm_calls.conversation_key) WHERE conversation_key IS NOT NULL"
    )


def downgrade() -> None:
    with op.batch_alter_table("llm_calls") as batch:
        batch.drop_index("ix_llm_calls_guild_id_started_at")
        batch.drop_column("user_id")
        batch.drop_column("guild_id")
    op.drop_table("scheduled_posts")
    op.drop_table("server_settings")
    op.drop_table("servers")
