"""The threads the bot opened for conversations: in them members talk without mentioning it."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import Mapped, mapped_column

from bot.storage.engine import Base, UTCDateTime, write_sessions


class BotThread(Base):
    """One thread the bot opened, and who opened the conversation."""

    __tablename__ = "bot_threads"

    thread_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    guild_id: Mapped[int | None] = mapped_column(BigInteger)
    parent_id: Mapped[int] = mapped_column(BigInteger)
    opened_by: Mapped[int] = mapped_column(BigInteger)
    opened_at: Mapped[datetime] = mapped_column(UTCDateTime())


class BotThreads:
    """The stored threads, with the ids of this process's known ones kept in memory: every
    message in a guild asks whether its channel is one, and the answer never changes back."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions
        # It reads before it writes: on SQLite the write lock is taken at BEGIN, or the
        # upgrade from reading would fail at once while another writer holds the lock.
        self._writes = write_sessions(sessions)
        self._known: set[int] = set()
        self._not: set[int] = set()

    async def add(
        self, thread_id: int, guild_id: int | None, parent_id: int, opened_by: int, now: datetime
    ) -> None:
        """Remember a thread the bot just opened (once, however often it is told)."""
        try:
            async with self._writes() as session, session.begin():
                if await session.get(BotThread, thread_id) is None:
                    session.add(
                        BotThread(
                            thread_id=thread_id,
                            guild_id=guild_id,
                            parent_id=parent_id,
                            opened_by=opened_by,
                            opened_at=now,
                        )
                    )
        except IntegrityError:
            pass  # another process stored it a moment earlier
        self._known.add(thread_id)
        self._not.discard(thread_id)

    async def is_ours(self, channel_id: int) -> bool:
        """Whether the bot opened this thread (read once per channel, then remembered)."""
        if channel_id in self._known:
            return True
        if channel_id in self._not:
            return False
        async with self._sessions() as session:
            found = (
                await session.scalar(
                    select(BotThread.thread_id).where(BotThread.thread_id == channel_id)
                )
                is not None
            )
        (self._known if found else self._not).add(channel_id)
        return found
