"""The history of knowledge-base edits in `kb_changes`: who changed which file, when, how much."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.storage.knowledge import KnowledgeChange

MAX_NAME_CHARS = 100


class ChangeAction(StrEnum):
    """What happened to the file."""

    CREATE = "create"
    REPLACE = "replace"
    DELETE = "delete"
    WEB_SEARCH = "web_search"


@dataclass(frozen=True, slots=True)
class Editor:
    """The person making a change (a Discord user, or the requester of a web search)."""

    user_id: int
    user_name: str


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


async def record_change(
    sessions: async_sessionmaker[AsyncSession],
    *,
    path: str,
    action: ChangeAction,
    editor: Editor,
    size_before: int | None,
    size_after: int | None,
    now: datetime,
) -> ChangeEntry:
    """Append a change to the history and return it."""
    row = KnowledgeChange(
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
    sessions: async_sessionmaker[AsyncSession], path: str | None = None, limit: int = 20
) -> list[ChangeEntry]:
    """The latest changes, newest first, to one file or to all."""
    query = select(KnowledgeChange).order_by(KnowledgeChange.id.desc()).limit(limit)
    if path is not None:
        query = query.where(KnowledgeChange.path == path)
    async with sessions() as session:
        return [_entry(row) for row in await session.scalars(query)]


def _entry(row: KnowledgeChange) -> ChangeEntry:
    return ChangeEntry(
        id=row.id,
        path=row.path,
        action=ChangeAction(row.action),
        user_id=row.user_id,
        user_name=row.user_name,
        size_before=row.size_before,
        size_after=row.size_after,
        changed_at=row.changed_at,
    )
