"""The servers the bot is in: joined (welcomed once), left, and deleted after the retention.

Leaving only marks the server; the daily retention pass deletes a server's data once it has
been gone SERVER_DATA_RETENTION_DAYS, so a server that invites the bot back before that finds
everything as it was.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
from collections.abc import Awaitable, Callable, Iterable, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.runtime.clock import Clock
from bot.servers.directory import ServerDirectory, ServerScope
from bot.storage.agent import ApprovalRequest, LLMCall, ToolGrant
from bot.storage.engine import one_writer, write_sessions
from bot.storage.model_choice import GuildModel
from bot.storage.servers import ScheduledPostRow, ServerRow, ServerSettingsRow

log = logging.getLogger(__name__)

# The shared tables holding a server's rows by guild_id; each feature names its own tables
# (AppBuilder.forget_with_server) or adds a forgetter.
_SERVER_TABLES = (
    ToolGrant,
    ApprovalRequest,
    LLMCall,
    GuildModel,
    ServerSettingsRow,
    ScheduledPostRow,
)

# Deletes what a feature keeps of one server (its files, its rows); returns how many it deleted.
Forgetter = Callable[[int], Awaitable[int]]


class Membership:
    """Records joins and departures and forgets servers gone past the retention."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        servers: ServerDirectory,
        retention_days: int,
        forgetters: Sequence[Forgetter] = (),
        knowledge_dir: Path | None = None,
        tables: Sequence[type[Any]] = (),
    ) -> None:
        self._sessions = sessions
        # Read-then-write transactions: on SQLite they take the write lock at BEGIN.
        self._writes = write_sessions(sessions)
        self._clock = clock
        self._servers = servers
        self.retention_days = retention_days
        self._forgetters = list(forgetters)
        # The features' tables first, then the shared ones (none refers to another).
        self._tables: tuple[type[Any], ...] = (*tables, *_SERVER_TABLES)
        # The server's own knowledge files live under it (servers/<guild id>/).
        self._knowledge_dir = knowledge_dir

    def also_forget(self, forgetter: Forgetter) -> None:
        """Add what a feature deletes when a server is forgotten."""
        self._forgetters.append(forgetter)

    async def joined(self, guild_id: int) -> bool:
        """The bot joined (or rejoined) a server; True when it has never been welcomed there."""
        now = self._clock.now()
        async with one_writer(self._sessions), self._writes() as session, session.begin():
            row = await session.get(ServerRow, guild_id)
            if row is None:
                session.add(ServerRow(guild_id=guild_id, joined_at=now))
                return True
            if row.left_at is not None:
                log.info("Back in server %s: its data was kept", guild_id)
            row.left_at = None
            return row.welcomed_at is None

    async def welcomed(self, guild_id: int) -> None:
        """The welcome was posted; it is never posted there again."""
        async with one_writer(self._sessions), self._writes() as session, session.begin():
            await session.execute(
                update(ServerRow)
                .where(ServerRow.guild_id == guild_id)
                .values(welcomed_at=self._clock.now())
            )

    async def present(self, guild_ids: Iterable[int]) -> None:
        """The servers seen at start: known from now on (no welcome: they had the bot before)."""
        now = self._clock.now()
        wanted = set(guild_ids)
        async with one_writer(self._sessions), self._writes() as session, session.begin():
            known = set(
                await session.scalars(
                    select(ServerRow.guild_id).where(ServerRow.guild_id.in_(wanted))
                )
            )
            for guild_id in wanted - known:
                session.add(ServerRow(guild_id=guild_id, joined_at=now, welcomed_at=now))
            await session.execute(
                update(ServerRow)
                .where(ServerRow.guild_id.in_(wanted), ServerRow.left_at.is_not(None))
                .values(left_at=None)
            )

    async def left(self, guild_id: int) -> None:
        """The bot was removed from a server: its data waits SERVER_DATA_RETENTION_DAYS."""
        now = self._clock.now()
        async with one_writer(self._sessions), self._writes() as session, session.begin():
            row = await session.get(ServerRow, guild_id)
            if row is None:
                session.add(ServerRow(guild_id=guild_id, joined_at=now, left_at=now))
            else:
                row.left_at = now
        log.info(
            "Removed from server %s: its data is deleted in %s",
            guild_id,
            f"{self.retention_days} days" if self.retention_days else "never (kept forever)",
        )

    async def forget_departed(self) -> list[int]:
        """Delete the data of servers left longer than the retention ago; their ids."""
        if not self.retention_days:
            return []
        cutoff = self._clock.now() - timedelta(days=self.retention_days)
        async with self._sessions() as session:
            gone = list(
                await session.scalars(
                    select(ServerRow.guild_id).where(
                        ServerRow.left_at.is_not(None), ServerRow.left_at < cutoff
                    )
                )
            )
        for guild_id in gone:
            await self.forget(guild_id)
        return gone

    async def forget(self, guild_id: int) -> int:
        """Delete everything kept of one server; how many rows (and files) went."""
        deleted = 0
        for forgetter in self._forgetters:
            deleted += await forgetter(guild_id)
        folder = ServerScope.of(guild_id).knowledge_folder
        if self._knowledge_dir is not None and folder is not None:
            path = self._knowledge_dir / folder
            if path.is_dir():
                deleted += sum(1 for p in path.rglob("*") if p.is_file())
                await asyncio.to_thread(shutil.rmtree, path, True)
        async with one_writer(self._sessions), self._writes() as session, session.begin():
            for table in self._tables:
                result = await session.execute(delete(table).where(table.guild_id == guild_id))
                deleted += int(getattr(result, "rowcount", 0) or 0)
            await session.execute(delete(ServerRow).where(ServerRow.guild_id == guild_id))
        self._servers.forget(guild_id)
        log.info(
            "Deleted the data of server %s (%d rows), gone past the retention", guild_id, deleted
        )
        return deleted
