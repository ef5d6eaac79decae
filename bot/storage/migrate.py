"""Apply and inspect Alembic migrations from inside the bot (start-up and the `db` CLI).

Processes that start together on one database migrate one at a time: PostgreSQL serialises them
with an advisory lock, SQLite with a lock file beside the database file. The one that waits
then finds the database at head and does nothing.

A start on a database that is already at `SCHEMA_HEAD` reads one row and never imports Alembic,
which would cost the bot about 11 MB and 0.2 s of CPU before it can connect.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

from filelock import FileLock
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError

from bot.storage.engine import Database

if TYPE_CHECKING:
    from alembic.config import Config

PROJECT_ROOT = Path(__file__).resolve().parents[2]
# The newest revision in migrations/versions; a test keeps the two equal.
SCHEMA_HEAD = "0024"
# Longest a process waits for another one's migrations before giving up with a sentence.
MIGRATION_LOCK_TIMEOUT_SECONDS = 300
# One key per schema: two bots in different schemas of one database do not wait for each other.
_ADVISORY_LOCK = text(
    "SELECT pg_advisory_xact_lock(hashtext('otomo.migrations:' || current_schema()))"
)


class MigrationLockTimeout(RuntimeError):
    """Another process held the migration lock for too long."""


def alembic_config(database_url: str) -> Config:
    """An Alembic Config pointing at our migrations, independent of the working directory."""
    from alembic.config import Config

    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(PROJECT_ROOT / "migrations"))
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


def head_revision(database_url: str) -> str | None:
    """The newest revision shipped with the code, as Alembic reads it from the migrations."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config(database_url)).get_current_head()


@contextlib.asynccontextmanager
async def _sqlite_file_lock(database: Database) -> AsyncIterator[None]:
    path = database.engine.url.database
    if database.engine.dialect.name != "sqlite" or path in (None, "", ":memory:"):
        yield
        return
    lock = FileLock(f"{path}.migrate.lock")
    try:
        await asyncio.to_thread(lock.acquire, timeout=MIGRATION_LOCK_TIMEOUT_SECONDS)
    except TimeoutError as exc:
        raise MigrationLockTimeout(
            f"Another Otomo process has been migrating {path} for over "
            f"{MIGRATION_LOCK_TIMEOUT_SECONDS} s; stop it or remove {lock.lock_file}"
        ) from exc
    try:
        yield
    finally:
        lock.release()


async def _migrate(database: Database, apply: str, revision: str) -> None:
    from alembic import command

    config = alembic_config(database.engine.url.render_as_string(hide_password=False))

    def run(connection: Connection) -> None:
        if connection.dialect.name == "postgresql":
            # Held until this transaction commits the migrations, then released by PostgreSQL.
            connection.execute(_ADVISORY_LOCK)
        config.attributes["connection"] = connection
        getattr(command, apply)(config, revision)

    async with _sqlite_file_lock(database), database.engine.begin() as connection:
        await connection.run_sync(run)


async def upgrade(database: Database, revision: str = "head") -> None:
    """Upgrade the database to revision using the app's own engine, one process at a time."""
    if revision == "head" and await _stored_revision(database) == SCHEMA_HEAD:
        return
    await _migrate(database, "upgrade", revision)


async def downgrade(database: Database, revision: str) -> None:
    """Downgrade the database to revision (used by the migration round-trip test)."""
    await _migrate(database, "downgrade", revision)


async def _stored_revision(database: Database) -> str | None:
    """The revision in the database's version table, read without Alembic; None when the table
    is missing or unreadable (the full path then migrates or reports the error)."""
    try:
        async with database.engine.connect() as connection:
            rows = (await connection.execute(text("SELECT version_num FROM alembic_version"))).all()
    except DBAPIError:
        return None
    return rows[0][0] if len(rows) == 1 else None


async def current_revision(database: Database) -> str | None:
    """The revision the database is at, or None when it was never migrated."""
    from alembic.runtime.migration import MigrationContext

    def read(connection: Connection) -> str | None:
        return MigrationContext.configure(connection).get_current_revision()

    async with database.engine.connect() as connection:
        return await connection.run_sync(read)
