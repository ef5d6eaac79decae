"""What the bot last told Discord about its slash commands, per application and scope."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Integer, String, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import Mapped, mapped_column

from bot.storage.base import Base, UTCDateTime

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


async def last_sync(
    sessions: async_sessionmaker[AsyncSession], application_id: int, scope: str
) -> CommandSync | None:
    """The latest sync to scope, or None when the bot never synced there."""
    async with sessions() as session:
        return await session.get(CommandSync, (application_id, scope))


async def all_syncs(
    sessions: async_sessionmaker[AsyncSession], application_id: int
) -> list[CommandSync]:
    """Every scope the application's commands were synced to, newest first."""
    async with sessions() as session:
        rows = await session.scalars(
            select(CommandSync)
            .where(CommandSync.application_id == application_id)
            .order_by(CommandSync.synced_at.desc())
        )
        return list(rows)


async def record_sync(
    sessions: async_sessionmaker[AsyncSession],
    application_id: int,
    scope: str,
    tree_hash: str,
    commands: int,
    now: datetime,
) -> None:
    """Remember that scope now holds the tree with this hash."""
    async with sessions() as session, session.begin():
        row = await session.get(CommandSync, (application_id, scope))
        if row is None:
            session.add(
                CommandSync(
                    application_id=application_id,
                    scope=scope,
                    tree_hash=tree_hash,
                    commands=commands,
                    synced_at=now,
                )
            )
        else:
            row.tree_hash, row.commands, row.synced_at = tree_hash, commands, now
