"""Alembic environment: async engine, batch mode for SQLite, URL from the bot's settings."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

from bot.app.schema import metadata
from bot.storage.engine import create_database

config = context.config


def _url() -> str:
    url = config.get_main_option("sqlalchemy.url")
    if url:
        return url
    from bot.settings import load_settings

    return load_settings().database_url


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        # SQLite cannot ALTER most things in place; batch mode recreates the table.
        render_as_batch=True,
        compare_type=True,
    )


def _run_sync(connection: Connection) -> None:
    _configure(connection)
    with context.begin_transaction():
        context.run_migrations()


async def _run_async() -> None:
    database = create_database(_url())
    try:
        async with database.engine.connect() as connection:
            await connection.run_sync(_run_sync)
            await connection.commit()
    finally:
        await database.dispose()


def run_offline() -> None:
    """Emit SQL to stdout instead of connecting (`alembic upgrade --sql`)."""
    context.configure(
        url=_url(), target_metadata=metadata, literal_binds=True, render_as_batch=True
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_offline()
elif (shared := config.attributes.get("connection")) is not None:
    # The bot passes its own connection so start-up migrates inside its event loop.
    _run_sync(shared)
else:
    asyncio.run(_run_async())
