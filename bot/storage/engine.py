"""Declarative base (a naming convention, a UTC datetime column type), and the engine and session
factory with the SQLite pragmas a bot process needs."""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import DateTime, Dialect, MetaData, event, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import DeclarativeBase
from sqlalchemy.pool import StaticPool
from sqlalchemy.types import TypeDecorator

from bot.storage.outage import DatabaseHealth

# Stable constraint names keep Alembic batch migrations on SQLite deterministic.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """Base class of every model."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class UTCDateTime(TypeDecorator[datetime]):
    """Stores instants as naive UTC on every backend and returns them timezone-aware."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Refuse naive datetimes: a local time without a zone cannot be stored safely."""
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("UTCDateTime needs an aware datetime")
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        """Attach UTC to what the database returns."""
        if value is None:
            return None
        assert isinstance(value, datetime)
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


# A second process (or the scheduler) may hold the write lock briefly; wait instead of failing.
SQLITE_BUSY_TIMEOUT_MS = 5000
WRITE_LOCK_UP_FRONT = "otomo_sqlite_immediate"


@dataclass(frozen=True)
class Database:
    """An engine and the session factory bound to it."""

    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]
    # Whether this process can reach it: one per database, handed to every user that retries.
    health: DatabaseHealth = field(default_factory=DatabaseHealth)

    async def dispose(self) -> None:
        """Close every pooled connection."""
        await self.engine.dispose()


def _on_sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    # The driver would BEGIN by itself (always DEFERRED); _on_sqlite_begin does it instead.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    # WAL lets readers proceed while the scheduler writes; foreign keys are off by default.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _on_sqlite_begin(connection: Connection) -> None:
    # A deferred transaction starts as a reader; when it then writes after another writer
    # committed, SQLite fails it at once with "database is locked" instead of waiting on
    # busy_timeout. Write transactions that take the lock up front wait their turn instead.
    immediate = connection.get_execution_options().get(WRITE_LOCK_UP_FRONT, False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


class _NoLock(contextlib.AbstractAsyncContextManager[None]):
    async def __aexit__(self, *_: object) -> None:
        return None


_WRITERS: weakref.WeakKeyDictionary[Any, asyncio.Lock] = weakref.WeakKeyDictionary()


def one_writer(
    sessions: async_sessionmaker[AsyncSession],
) -> contextlib.AbstractAsyncContextManager[Any]:
    """A lock shared by this process's writers of a SQLite file (a no-op elsewhere): SQLite
    has one writer at a time, and dozens polling busy_timeout starve some past it."""
    bind = sessions.kw.get("bind")
    if not isinstance(bind, AsyncEngine) or bind.dialect.name != "sqlite":
        return _NoLock()
    key = bind.sync_engine.pool
    lock = _WRITERS.get(key)
    if lock is None:
        lock = _WRITERS[key] = asyncio.Lock()
    return lock


def write_sessions(sessions: async_sessionmaker[AsyncSession]) -> async_sessionmaker[AsyncSession]:
    """Sessions for short write transactions: on SQLite they take the write lock at BEGIN."""
    bind = sessions.kw.get("bind")
    if not isinstance(bind, AsyncEngine) or bind.dialect.name != "sqlite":
        return sessions
    return async_sessionmaker(
        bind.execution_options(**{WRITE_LOCK_UP_FRONT: True}), expire_on_commit=False
    )


def create_database(url: str, *, echo: bool = False) -> Database:
    """Create the async engine for url; a file-backed SQLite gets its folder created."""
    parsed = make_url(url)
    kwargs: dict[str, Any] = {"echo": echo}
    is_sqlite = parsed.get_backend_name() == "sqlite"
    in_memory = is_sqlite and (parsed.database in (None, "", ":memory:"))
    if in_memory:
        # One shared connection, or every session would see its own empty database.
        kwargs["poolclass"] = StaticPool
        kwargs["connect_args"] = {"check_same_thread": False}
    elif is_sqlite and parsed.database:
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    else:
        # A server restart leaves dead connections in the pool: test each before handing it out.
        kwargs["pool_pre_ping"] = True
    engine = create_async_engine(url, **kwargs)
    if is_sqlite:
        event.listen(engine.sync_engine, "connect", _on_sqlite_connect)
        event.listen(engine.sync_engine, "begin", _on_sqlite_begin)
    return Database(engine, async_sessionmaker(engine, expire_on_commit=False))


async def database_now(session: AsyncSession) -> datetime:
    """The database server's clock in UTC, which every process sharing it agrees on."""
    if session.get_bind().dialect.name == "postgresql":
        value = await session.scalar(text("SELECT statement_timestamp()"))
        assert isinstance(value, datetime)
        return value.astimezone(UTC)
    # A SQLite file is shared only by processes on this machine: its clock is theirs.
    return datetime.now(UTC)
