"""Apply and inspect Alembic migrations from inside the bot (start-up and the `db` CLI)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection

from bot.storage.engine import Database

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def alembic_config(database_url: str) -> Config:
    """An Alembic Config pointing at our migrations, independent of the working directory."""
    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(PROJECT_ROOT / "migrations"))
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


def head_revision(database_url: str) -> str | None:
    """The newest revision shipped with the code."""
    return ScriptDirectory.from_config(alembic_config(database_url)).get_current_head()


async def upgrade(database: Database, revision: str = "head") -> None:
    """Upgrade the database to revision using the app's own engine."""
    config = alembic_config(database.engine.url.render_as_string(hide_password=False))

    def run(connection: Connection) -> None:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)

    async with database.engine.begin() as connection:
        await connection.run_sync(run)


async def downgrade(database: Database, revision: str) -> None:
    """Downgrade the database to revision (used by the migration round-trip test)."""
    config = alembic_config(database.engine.url.render_as_string(hide_password=False))

    def run(connection: Connection) -> None:
        config.attributes["connection"] = connection
        command.downgrade(config, revision)

    async with database.engine.begin() as connection:
        await connection.run_sync(run)


async def current_revision(database: Database) -> str | None:
    """The revision the database is at, or None when it was never migrated."""

    def read(connection: Connection) -> str | None:
        return MigrationContext.configure(connection).get_current_revision()

    async with database.engine.connect() as connection:
        return await connection.run_sync(read)
