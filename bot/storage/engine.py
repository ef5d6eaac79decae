"""Engine and session factory, with the SQLite pragmas a bot process needs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.pool import StaticPool

# A second process (or the scheduler) may hold the write lock briefly; wait instead of failing.
SQLITE_BUSY_TIMEOUT_MS = 5000


@dataclass(frozen=True)
class Database:
    """An engine and the session factory bound to it."""

    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]

    async def dispose(self) -> None:
        """Close every pooled connection."""
        await self.engine.dispose()


def _on_sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL lets readers proceed while the scheduler writes; foreign keys are off by default.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


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
    return Database(engine, async_sessionmaker(engine, expire_on_commit=False))
