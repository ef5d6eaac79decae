"""The history of knowledge-base edits in `kb_changes`: who changed which file, when, how much."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.knowledge.table import KnowledgeChange
from bot.members.permissions import Person
from bot.servers import ServerScope

MAX_NAME_CHARS = 100


class ChangeAction(StrEnum):
    """What happened to the file."""

    CREATE = "create"
    REPLACE = "replace"
    DELETE = "delete"
    WEB_SEARCH = "web_search"


@dataclass(frozen=True, slots=True)
class ChangeEntry:
    """One line of a file's history."""

    id: int
    path: str
    action: ChangeAction
    user_id: int
    user_name: str
    size_before: int | None
    size_after: int | None
    changed_at: datetime
    # The server whose file it is (path inside its folder); None for the shared base.
    guild_id: int | None = None


async def record_change(
    sessions: async_sessionmaker[AsyncSession],
    *,
    guild_id: int | None,
    path: str,
    action: ChangeAction,
    editor: Person,
    size_before: int | None,
    size_after: int | None,
    now: datetime,
) -> ChangeEntry:
    """Append a change (of a server's file, or of the shared base when guild_id is None)."""
    row = KnowledgeChange(
        guild_id=guild_id,
        path=path,
        action=action.value,
        user_id=editor.user_id,
        user_name=editor.user_name[:MAX_NAME_CHARS],
        size_before=size_before,
        size_after=size_after,
        changed_at=now,
    )
    async with sessions() as session, session.begin():
        session.add(row)
    return _entry(row)


async def list_changes(
    sessions: async_sessionmaker[AsyncSession],
    scope: ServerScope,
    path: str | None = None,
    limit: int = 20,
) -> list[ChangeEntry]:
    """The latest changes a scope sees (the shared base's and its server's), newest first, to
    one file (a path inside its folder) or to all."""
    owner = KnowledgeChange.guild_id
    seen = (
        owner.is_(None) if scope.guild_id is None else or_(owner.is_(None), owner == scope.guild_id)
    )
    query = select(KnowledgeChange).where(seen).order_by(KnowledgeChange.id.desc()).limit(limit)
    if path is not None:
        query = query.where(KnowledgeChange.path == path)
    async with sessions() as session:
        return [_entry(row) for row in await session.scalars(query)]


def _entry(row: KnowledgeChange) -> ChangeEntry:
    return ChangeEntry(
        id=row.id,
        path=row.path,
        guild_id=row.guild_id,
        action=ChangeAction(row.action),
        user_id=row.user_id,
        user_name=row.user_name,
        size_before=row.size_before,
        size_after=row.size_after,
        changed_at=row.changed_at,
    )
