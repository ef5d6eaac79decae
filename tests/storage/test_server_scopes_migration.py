"""Migration 0017 on a database made by the previous version, with rows in it: each row goes to
its server where the data says which, the rest stays shared, and the upgraded bot behaves."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import text

from bot.agent.approvals.service import ApprovalService
from bot.runtime.clock import ManualClock
from bot.storage import create_database
from bot.storage.engine import Database
from bot.storage.migrate import SCHEMA_HEAD, current_revision, downgrade, upgrade

GUILD, OTHER = 1_100_000_000_000_000_001, 1_100_000_000_004_194_305
CHANNEL, OTHER_CHANNEL = 1_300_000_000_000_000_001, 1_300_000_000_000_000_011
HANA = 1_200_000_000_000_000_002
WHEN = datetime(2026, 11, 29, 11, 0)  # naive UTC, as the column stores it


@pytest.fixture
async def at_0016(blank_database_url: str) -> AsyncIterator[Database]:
    database = create_database(blank_database_url)
    await upgrade(database, "0016")
    try:
        yield database
    finally:
        await database.dispose()


async def _insert(database: Database, sql: str, rows: list[dict[str, Any]]) -> None:
    async with database.engine.begin() as connection:
        for row in rows:
            await connection.execute(text(sql), row)


async def _asked(database: Database, tool: str, guild: int | None, channel: int) -> None:
    await _insert(
        database,
        "INSERT INTO approval_requests (tool_call_id, tool_name, arguments, requester_id, "
        "requester_name, guild_id, channel_id, conversation_key, handler, status, created_at, "
        "expires_at) VALUES (:call, :tool, '{}', :user, 'hana', :guild, :channel, 'c:u', "
        "'general', 'executed', :when, :when)",
        [
            {
                "call": f"{tool}-{guild}",
                "tool": tool,
                "user": HANA,
                "guild": guild,
                "channel": channel,
                "when": WHEN,
            }
        ],
    )


async def _old_rows(database: Database) -> None:
    await _insert(
        database,
        "INSERT INTO tool_grants (user_id, tool_name, created_at, provider) "
        "VALUES (:user, :tool, :when, NULL)",
        [{"user": HANA, "tool": t, "when": WHEN} for t in ("web_search", "add_note", "roll")],
    )
    await _insert(
        database,
        "INSERT INTO word_pool (word, score, last_seen) VALUES (:word, 3.0, :when)",
        [{"word": w, "when": WHEN} for w in ("ラーメン", "花火")],
    )
    await _insert(
        database,
        "INSERT INTO tips_history (topic, text, channel_id, posted_at) "
        "VALUES (:topic, 'tip', :channel, :when)",
        [
            {"topic": "ラーメン", "channel": CHANNEL, "when": WHEN},
            {"topic": "花火", "channel": 42, "when": WHEN},
        ],
    )
    await _insert(
        database,
        "INSERT INTO kb_changes (path, action, user_id, user_name, size_before, size_after, "
        "changed_at) VALUES ('faq.md', 'create', :user, 'kenji', NULL, 120, :when)",
        [{"user": HANA, "when": WHEN}],
    )


async def _rows(database: Database, sql: str) -> list[tuple[Any, ...]]:
    async with database.engine.connect() as connection:
        return [tuple(row) for row in (await connection.execute(text(sql))).all()]


async def test_a_one_server_bot_gets_its_rows_assigned_to_its_server(at_0016: Database) -> None:
    await _asked(at_0016, "web_search", GUILD, CHANNEL)
    await _asked(at_0016, "add_note", None, 99)  # asked in a DM only
    await _old_rows(at_0016)

    await upgrade(at_0016)

    assert await current_revision(at_0016) == SCHEMA_HEAD
    grants = dict(await _rows(at_0016, "SELECT tool_name, guild_id FROM tool_grants"))
    assert grants == {"web_search": GUILD, "add_note": 0, "roll": None}
    assert sorted(await _rows(at_0016, "SELECT word, guild_id FROM word_pool")) == [
        ("ラーメン", GUILD),
        ("花火", GUILD),
    ]
    # A tip of a channel the data does not place still went to the only server there is.
    assert sorted(await _rows(at_0016, "SELECT topic, guild_id FROM tips_history")) == [
        ("ラーメン", GUILD),
        ("花火", GUILD),
    ]
    assert await _rows(at_0016, "SELECT path, guild_id FROM kb_changes") == [("faq.md", None)]

    # The upgraded bot: the grant still counts where it was made, the unplaced one everywhere.
    clock = ManualClock(datetime(2026, 11, 30, tzinfo=UTC))
    approvals = ApprovalService(at_0016.sessions, clock, timeout_seconds=600)
    assert await approvals.needs_asking(HANA, "web_search", guild_id=GUILD) == (False, "grant")
    assert await approvals.needs_asking(HANA, "web_search", guild_id=OTHER) == (True, "")
    assert await approvals.needs_asking(HANA, "roll", guild_id=OTHER) == (False, "grant")


async def test_with_two_servers_only_what_the_data_places_is_assigned(at_0016: Database) -> None:
    await _asked(at_0016, "web_search", GUILD, CHANNEL)
    await _asked(at_0016, "web_search", OTHER, OTHER_CHANNEL)  # granted where? both asked
    await _asked(at_0016, "add_note", OTHER, OTHER_CHANNEL)
    await _old_rows(at_0016)

    await upgrade(at_0016)

    grants = dict(await _rows(at_0016, "SELECT tool_name, guild_id FROM tool_grants"))
    assert grants == {"web_search": None, "add_note": OTHER, "roll": None}
    assert sorted(await _rows(at_0016, "SELECT word, guild_id FROM word_pool")) == [
        ("ラーメン", 0),
        ("花火", 0),
    ]
    assert sorted(await _rows(at_0016, "SELECT topic, guild_id FROM tips_history")) == [
        ("ラーメン", GUILD),
        ("花火", None),
    ]


async def test_the_downgrade_keeps_one_row_per_member_tool_and_word(at_0016: Database) -> None:
    await upgrade(at_0016)
    await _insert(
        at_0016,
        "INSERT INTO tool_grants (user_id, guild_id, tool_name, created_at) "
        "VALUES (:user, :guild, 'web_search', :when)",
        [{"user": HANA, "guild": g, "when": WHEN} for g in (GUILD, OTHER)],
    )
    await _insert(
        at_0016,
        "INSERT INTO word_pool (guild_id, word, score, last_seen) VALUES (:g, '花火', :s, :when)",
        [{"g": GUILD, "s": 1.0, "when": WHEN}, {"g": OTHER, "s": 4.0, "when": WHEN}],
    )

    await downgrade(at_0016, "0016")

    assert await _rows(at_0016, "SELECT user_id, tool_name FROM tool_grants") == [
        (HANA, "web_search")
    ]
    assert await _rows(at_0016, "SELECT word, score FROM word_pool") == [("花火", 4.0)]
