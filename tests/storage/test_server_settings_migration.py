"""Migration 0018 on a database made by the previous version, with rows in it: the call log
learns the server and member of calls whose conversation asked for an approval, the rest stays
unassigned, and a bot on the upgraded database keeps the environment's settings."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import datetime
from typing import Any

import pytest
from sqlalchemy import text

from bot.runtime.clock import ManualClock
from bot.servers.config import defaults_of
from bot.servers.directory import ServerDirectory
from bot.settings import Settings
from bot.storage import create_database
from bot.storage.engine import Database
from bot.storage.migrate import SCHEMA_HEAD, current_revision, downgrade, upgrade

GUILD = 1_100_000_000_000_000_001
HANA = 1_200_000_000_000_000_002
WHEN = datetime(2026, 11, 29, 11, 0)  # naive UTC, as the column stores it


@pytest.fixture
async def at_0017(blank_database_url: str) -> AsyncIterator[Database]:
    database = create_database(blank_database_url)
    await upgrade(database, "0017")
    try:
        yield database
    finally:
        await database.dispose()


async def _execute(database: Database, sql: str, **values: Any) -> None:
    async with database.engine.begin() as connection:
        await connection.execute(text(sql), values)


async def _rows(database: Database, sql: str) -> list[tuple[Any, ...]]:
    async with database.engine.connect() as connection:
        return [tuple(row) for row in (await connection.execute(text(sql))).all()]


async def _call(database: Database, key: str | None) -> None:
    await _execute(
        database,
        "INSERT INTO llm_calls (model, purpose, conversation_key, started_at, latency_ms, "
        "tokens_in, tokens_out) VALUES ('m', 'chat', :key, :when, 1.0, 10, 5)",
        key=key,
        when=WHEN,
    )


async def test_calls_of_a_conversation_with_an_approval_learn_their_server_and_member(
    at_0017: Database,
) -> None:
    await _execute(
        at_0017,
        "INSERT INTO approval_requests (tool_call_id, tool_name, arguments, requester_id, "
        "requester_name, guild_id, channel_id, conversation_key, handler, status, created_at, "
        "expires_at) VALUES ('c1', 'web_search', '{}', :user, 'hana', :guild, 1, 'c1:u2', "
        "'general', 'executed', :when, :when)",
        user=HANA,
        guild=GUILD,
        when=WHEN,
    )
    await _call(at_0017, "c1:u2")
    await _call(at_0017, "c9:u9")
    await _call(at_0017, None)

    await upgrade(at_0017)

    assert await current_revision(at_0017) == SCHEMA_HEAD
    rows = await _rows(
        at_0017, "SELECT conversation_key, guild_id, user_id FROM llm_calls ORDER BY id"
    )
    assert rows == [("c1:u2", GUILD, HANA), ("c9:u9", None, None), (None, None, None)]


async def test_an_upgraded_bot_keeps_the_environments_settings_and_downgrades_cleanly(
    at_0017: Database, clock: ManualClock, make_settings: Callable[..., Settings]
) -> None:
    await _call(at_0017, "c1:u2")
    await upgrade(at_0017)
    settings = make_settings(PERSONA="いつもの口調", AUTO_APPROVE_TOOLS="add_note")
    servers = ServerDirectory(at_0017.sessions, clock, defaults_of(settings))

    assert await servers.refresh() == 0
    assert servers.config(GUILD).persona == "いつもの口調"
    assert servers.config(GUILD).auto_approve_tools == {"add_note"}

    await downgrade(at_0017, "0017")
    assert await current_revision(at_0017) == "0017"
    assert await _rows(at_0017, "SELECT count(*) FROM llm_calls") == [(1,)]
