"""Writers that read first take SQLite's write lock up front: another writer's commit between
their read and their write makes them wait their turn, never fail with "database is locked"."""

from __future__ import annotations

import logging
import shutil
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from bot.chat.word_pool import WordPool
from bot.knowledge.analysis import analyse_document
from bot.knowledge.cache import load_cache, store_analyses
from bot.runtime.clock import ManualClock
from bot.settings import Settings
from bot.storage.engine import Database, create_database
from tests.conftest import START

# The server whose members talk in these tests.
GUILD = 1


@pytest.fixture
async def sqlite_file(sqlite_template: Path, tmp_path: Path) -> AsyncIterator[Database]:
    """A migrated SQLite file (these locks exist only on SQLite)."""
    path = tmp_path / "otomo.db"
    shutil.copyfile(sqlite_template, path)
    database = create_database(f"sqlite+aiosqlite:///{path}")
    yield database
    await database.dispose()


def commit_from_elsewhere_after_reading(database: Database, table: str) -> list[str]:
    """After the first read of table, another connection tries to write and commit at once
    (as the word pool or a reminder does at start-up); return what became of it."""
    url = database.engine.url.database
    assert url is not None
    outcome: list[str] = []

    def after_read(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if outcome or not statement.lstrip().upper().startswith("SELECT") or table not in statement:
            return
        other = sqlite3.connect(url, timeout=0, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            other.execute(
                "INSERT INTO tips_history (topic, text, posted_at) "
                "VALUES ('x', 'x', '2026-01-01 00:00:00')"
            )
            other.execute("COMMIT")
            outcome.append("committed")
        except sqlite3.OperationalError as refused:
            outcome.append(str(refused))  # the reader already holds the write lock
        finally:
            other.close()

    event.listen(database.engine.sync_engine, "after_cursor_execute", after_read)
    return outcome


async def test_storing_knowledge_analyses_holds_the_write_lock_from_its_read(
    sqlite_file: Database,
) -> None:
    other = commit_from_elsewhere_after_reading(sqlite_file, "kb_documents")
    analysis = analyse_document("# 洗濯\n晴れた日は外に干します。", "laundry")

    await store_analyses(sqlite_file.sessions, [("laundry.md", "h1", analysis)], START)

    cached, _ = await load_cache(sqlite_file.sessions)
    assert cached["laundry.md"].content_hash == "h1"
    assert other == ["database is locked"]


async def test_flushing_the_word_pool_holds_the_write_lock_from_its_read(
    sqlite_file: Database, caplog: pytest.LogCaptureFixture
) -> None:
    other = commit_from_elsewhere_after_reading(sqlite_file, "word_pool")
    pool = WordPool(sqlite_file.sessions, ManualClock(START), Settings())
    pool.observe("ラーメンと餃子を食べた", channel_id=1, guild_id=GUILD)

    with caplog.at_level(logging.WARNING):
        assert await pool.flush() == 2

    assert other == ["database is locked"]
    assert "locked" not in caplog.text
