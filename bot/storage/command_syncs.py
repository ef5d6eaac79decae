"""What the bot last told Discord about its slash commands, per application and scope."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Integer, String
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import Mapped, mapped_column

from bot.storage.engine import Base, UTCDateTime, one_writer, write_sessions

# "global", or the id of the one server commands were synced to.
GLOBAL_SCOPE = "global"


class CommandSync(Base):
    """The hash of the command tree last synced to one scope, and when."""

    __tablename__ = "command_syncs"

    application_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    scope: Mapped[str] = mapped_column(String(32), primary_key=True)
    tree_hash: Mapped[str] = mapped_column(String(64))
    commands: Mapped[int] = mapped_column(Integer)
    synced_at: Mapped[datetime] = mapped_column(UTCDateTime())


class CommandSyncs:
    """The stored syncs, per application and scope."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions
        # A read-then-write: on SQLite it takes the write lock at BEGIN, so a start that writes
        # elsewhere at the same time (servers seen, settings) cannot make it fail as locked.
        self._writes = write_sessions(sessions)

    async def last(self, application_id: int, scope: str) -> CommandSync | None:
        """The latest sync to scope, or None when the bot never synced there."""
        async with self._sessions() as session:
            return await session.get(CommandSync, (application_id, scope))

    async def record(
        self, application_id: int, scope: str, tree_hash: str, commands: int, now: datetime
    ) -> None:
        """Remember that scope now holds the tree with this hash."""
        async with one_writer(self._sessions), self._writes() as session, session.begin():
            row = await session.get(CommandSync, (application_id, scope))
            if row is None:
                row = CommandSync(application_id=application_id, scope=scope)
                session.add(row)
            row.tree_hash, row.commands, row.synced_at = tree_hash, commands, now
