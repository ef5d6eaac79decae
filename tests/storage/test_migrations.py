"""Migrations produce exactly the models' schema, and downgrade → upgrade round-trips."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect
from sqlalchemy.engine import Connection

from bot.app.schema import metadata
from bot.storage import create_database
from bot.storage.migrate import (
    SCHEMA_HEAD,
    current_revision,
    downgrade,
    head_revision,
    upgrade,
)


def _differences(connection: Connection) -> list[Any]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return list(compare_metadata(context, metadata))


def _tables(connection: Connection) -> set[str]:
    return set(inspect(connection).get_table_names()) - {"alembic_version"}


async def test_migrations_match_the_models_exactly(blank_database_url: str) -> None:
    url = blank_database_url
    database = create_database(url)
    try:
        await upgrade(database)
        async with database.engine.connect() as connection:
            differences = await connection.run_sync(_differences)
            tables = await connection.run_sync(_tables)
        assert differences == []
        assert tables == set(metadata.tables)
        assert await current_revision(database) == head_revision(url)
    finally:
        await database.dispose()


async def test_downgrade_to_base_and_upgrade_again_round_trips(blank_database_url: str) -> None:
    database = create_database(blank_database_url)
    try:
        await upgrade(database)
        await downgrade(database, "base")
        async with database.engine.connect() as connection:
            assert await connection.run_sync(_tables) == set()
        assert await current_revision(database) is None
        await upgrade(database)
        async with database.engine.connect() as connection:
            assert await connection.run_sync(_differences) == []
    finally:
        await database.dispose()


def test_schema_head_names_the_newest_migration(tmp_path: Path) -> None:
    assert head_revision(f"sqlite+aiosqlite:///{tmp_path / 'h.db'}") == SCHEMA_HEAD


async def test_a_database_behind_the_head_is_still_upgraded(blank_database_url: str) -> None:
    database = create_database(blank_database_url)
    try:
        await upgrade(database, "0009")
        await upgrade(database)
        assert await current_revision(database) == SCHEMA_HEAD
    finally:
        await database.dispose()


def test_a_start_on_a_database_at_head_never_imports_alembic(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'a.db'}"
    script = textwrap.dedent(
        f"""
        import asyncio, sys
        from bot.storage import create_database
        from bot.storage.migrate import upgrade

        async def main():
            database = create_database({url!r})
            await upgrade(database)
            await database.dispose()

        asyncio.run(main())
        print(sorted(name for name in sys.modules if name.split(".")[0] == "alembic"))
        """
    )

    def loaded() -> str:
        done = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    assert loaded() != "[]"  # the first start migrates, with Alembic
    assert loaded() == "[]"  # the next one finds the database at head


async def test_sqlite_pragmas_are_applied(tmp_path: Path) -> None:
    database = create_database(f"sqlite+aiosqlite:///{tmp_path / 'p.db'}")
    try:
        async with database.engine.connect() as connection:
            journal = (await connection.exec_driver_sql("PRAGMA journal_mode")).scalar()
            keys = (await connection.exec_driver_sql("PRAGMA foreign_keys")).scalar()
            busy = (await connection.exec_driver_sql("PRAGMA busy_timeout")).scalar()
        assert (journal, keys, busy) == ("wal", 1, 5000)
    finally:
        await database.dispose()
