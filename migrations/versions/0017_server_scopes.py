"""every server's own rows: knowledge files and their log, word pool, tips history and grants
carry the server's id

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-02

Existing rows go to their server where the data says which: a tip by the server of its channel
(as approvals, reminders and notes name it), a grant by where its tool was asked for, and words
when the database only ever knew one server. The rest stay shared as before: NULL (word pool:
0), which every server still sees, so a one-server bot upgraded behaves as it did.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SERVERS_FOLDER = "servers"
# word_pool.guild_id of rows from before (the column is part of the primary key).
LEGACY_GUILD = 0
# tool_grants.guild_id of a grant made in a DM.
DM_GRANTS = 0


def _place_owner(path: str) -> int | None:
    """The server of a knowledge-base path `servers/<id>/…`, None for a shared file."""
    parts = path.split("/")
    if len(parts) >= 3 and parts[0] == SERVERS_FOLDER and parts[1].isdigit():
        return int(parts[1])
    return None


def _known_guilds(bind: sa.Connection) -> set[int]:
    """Every server the database names anywhere."""
    found: set[int] = set()
    for table in ("notes", "reminders", "approval_requests", "guild_models"):
        rows = bind.execute(
            sa.text(f"SELECT DISTINCT guild_id FROM {table} WHERE guild_id IS NOT NULL")
        )
        found.update(int(row[0]) for row in rows)
    return found


def _channel_guilds(bind: sa.Connection) -> dict[int, int]:
    """channel id → its server, from the rows that name both."""
    found: dict[int, set[int]] = {}
    for table in ("approval_requests", "reminders", "notes"):
        rows = bind.execute(
            sa.text(
                f"SELECT DISTINCT channel_id, guild_id FROM {table} WHERE guild_id IS NOT NULL"
            )
        )
        for channel_id, guild_id in rows:
            found.setdefault(int(channel_id), set()).add(int(guild_id))
    return {channel: next(iter(guilds)) for channel, guilds in found.items() if len(guilds) == 1}


def upgrade() -> None:
    bind = op.get_bind()
    guilds = _known_guilds(bind)
    only_guild = next(iter(guilds)) if len(guilds) == 1 else None

    with op.batch_alter_table("kb_documents") as batch:
        batch.add_column(sa.Column("guild_id", sa.BigInteger(), nullable=True))
        batch.create_index("ix_kb_documents_guild_id", ["guild_id"], unique=False)
    documents = sa.table("kb_documents", sa.column("path", sa.String), sa.column("guild_id"))
    for (path,) in bind.execute(sa.select(documents.c.path)).all():
        owner = _place_owner(str(path))
        if owner is not None:
            bind.execute(
                documents.update().where(documents.c.path == path).values(guild_id=owner)
            )

    # Every edit so far was of the shared base: NULL.
    with op.batch_alter_table("kb_changes") as batch:
        batch.add_column(sa.Column("guild_id", sa.BigInteger(), nullable=True))
        batch.create_index("ix_kb_changes_guild_id", ["guild_id"], unique=False)

    with op.batch_alter_table("word_pool") as batch:
        batch.add_column(
            sa.Column(
                "guild_id", sa.BigInteger(), nullable=False, server_default=str(LEGACY_GUILD)
            )
        )
    if only_guild is not None:
        bind.execute(sa.text("UPDATE word_pool SET guild_id = :g").bindparams(g=only_guild))
    with op.batch_alter_table("word_pool") as batch:
        batch.alter_column("guild_id", existing_type=sa.BigInteger(), server_default=None)
        batch.drop_constraint("pk_word_pool", type_="primary")
        batch.create_primary_key("pk_word_pool", ["guild_id", "word"])

    with op.batch_alter_table("tips_history") as batch:
        batch.add_column(sa.Column("guild_id", sa.BigInteger(), nullable=True))
        batch.create_index("ix_tips_history_guild_id", ["guild_id"], unique=False)
    channels = _channel_guilds(bind)
    tips = sa.table("tips_history", sa.column("channel_id"), sa.column("guild_id"))
    rows = bind.execute(sa.text("SELECT DISTINCT channel_id FROM tips_history")).all()
    for (channel_id,) in rows:
        guild = channels.get(int(channel_id)) if channel_id is not None else None
        guild = guild if guild is not None else only_guild
        if guild is not None:
            where = (
                tips.c.channel_id.is_(None)
                if channel_id is None
                else tips.c.channel_id == channel_id
            )
            bind.execute(tips.update().where(where).values(guild_id=guild))

    with op.batch_alter_table("tool_grants") as batch:
        batch.add_column(sa.Column("guild_id", sa.BigInteger(), nullable=True))
        batch.drop_constraint("uq_tool_grants_user_id", type_="unique")
        batch.create_unique_constraint(
            "uq_tool_grants_user_id", ["user_id", "guild_id", "tool_name"]
        )
    grants = sa.table(
        "tool_grants", sa.column("id"), sa.column("user_id"), sa.column("tool_name"),
        sa.column("guild_id"),
    )
    asked = bind.execute(
        sa.text("SELECT DISTINCT requester_id, tool_name, guild_id FROM approval_requests")
    ).all()
    places: dict[tuple[int, str], set[int]] = {}
    for requester_id, tool_name, guild_id in asked:
        where = int(guild_id) if guild_id is not None else DM_GRANTS
        places.setdefault((int(requester_id), str(tool_name)), set()).add(where)
    for grant_id, user_id, tool_name in bind.execute(
        sa.select(grants.c.id, grants.c.user_id, grants.c.tool_name)
    ).all():
        where_asked = places.get((int(user_id), str(tool_name)), set())
        if len(where_asked) == 1:
            bind.execute(
                grants.update()
                .where(grants.c.id == grant_id)
                .values(guild_id=next(iter(where_asked)))
            )


def downgrade() -> None:
    bind = op.get_bind()
    # One grant per member and tool again: the oldest stays.
    bind.execute(
        sa.text(
            "DELETE FROM tool_grants WHERE id NOT IN (SELECT MIN(id) FROM tool_grants "
            "GROUP BY user_id, tool_name)"
        )
    )
    with op.batch_alter_table("tool_grants") as batch:
        batch.drop_constraint("uq_tool_grants_user_id", type_="unique")
        batch.create_unique_constraint("uq_tool_grants_user_id", ["user_id", "tool_name"])
        batch.drop_column("guild_id")

    with op.batch_alter_table("tips_history") as batch:
        batch.drop_index("ix_tips_history_guild_id")
        batch.drop_column("guild_id")

    # One row per word again: the strongest server's.
    words = bind.execute(sa.text("SELECT word, score, last_seen FROM word_pool")).all()
    strongest: dict[str, tuple[float, object]] = {}
    for word, score, last_seen in words:
        if word not in strongest or float(score) > strongest[word][0]:
            strongest[word] = (float(score), last_seen)
    bind.execute(sa.text("DELETE FROM word_pool"))
    with op.batch_alter_table("word_pool") as batch:
        batch.drop_constraint("pk_word_pool", type_="primary")
        batch.drop_column("guild_id")
        batch.create_primary_key("pk_word_pool", ["word"])
    pool = sa.table("word_pool", sa.column("word"), sa.column("score"), sa.column("last_seen"))
    if strongest:
        bind.execute(
            pool.insert(),
            [{"word": w, "score": s, "last_seen": seen} for w, (s, seen) in strongest.items()],
        )

    with op.batch_alter_table("kb_changes") as batch:
        batch.drop_index("ix_kb_changes_guild_id")
        batch.drop_column("guild_id")
    with op.batch_alter_table("kb_documents") as batch:
        batch.drop_index("ix_kb_documents_guild_id")
        batch.drop_column("guild_id")
