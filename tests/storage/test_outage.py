"""Telling "the database is away" from "the statement is wrong", and saying it once each way."""

from __future__ import annotations

import logging
import socket
import sqlite3
from datetime import UTC, datetime

import pytest
from sqlalchemy import text, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError

from bot.storage import Database, create_database
from bot.storage import engine as storage_engine
from bot.storage.leases import BotLeaseRow
from bot.storage.outage import RETRY_MAX_SECONDS, DatabaseHealth, is_unreachable


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _error_of(database: Database, statement: str) -> Exception:
    try:
        async with database.sessions() as session, session.begin():
            await session.execute(text(statement))
    except Exception as exc:
        return exc
    raise AssertionError(f"{statement!r} did not fail")


async def test_a_database_that_cannot_be_reached_now_is_told_from_a_wrong_statement(
    database_engine: str, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = create_database(database_url)
    wrong = await _error_of(database, "SELECT * FROM no_such_table")
    if database_engine == "sqlite":
        # Another program holds the write lock longer than the bot waits for it.
        monkeypatch.setattr(storage_engine, "SQLITE_BUSY_TIMEOUT_MS", 50)
        await database.dispose()
        database = create_database(database_url)
        path = make_url(database_url).database
        assert path
        locker = sqlite3.connect(path, isolation_level=None)
        locker.execute("BEGIN EXCLUSIVE")
        try:
            away = await _error_of(database, "UPDATE bot_leases SET holder = 'x'")
        finally:
            locker.execute("ROLLBACK")
            locker.close()
    else:
        # A server that is not (or no longer) listening.
        gone = create_database(
            make_url(database_url).set(port=_closed_port()).render_as_string(False)
        )
        away = await _error_of(gone, "SELECT 1")
        await gone.dispose()
    await database.dispose()

    assert is_unreachable(away), repr(away)
    assert not is_unreachable(wrong), repr(wrong)


async def test_a_broken_rule_is_not_an_outage(database: Database) -> None:
    async with database.sessions() as session, session.begin():
        session.add(BotLeaseRow(name="jobs", holder="a", expires_at=_epoch()))
    with pytest.raises(IntegrityError) as raised:
        async with database.sessions() as session, session.begin():
            session.add(BotLeaseRow(name="jobs", holder="b", expires_at=_epoch()))
    async with database.sessions() as session, session.begin():
        await session.execute(update(BotLeaseRow).values(holder="c"))

    assert not is_unreachable(raised.value)


def _epoch() -> datetime:
    return datetime(2026, 1, 1, tzinfo=UTC)


def test_an_outage_is_said_once_when_it_starts_and_once_when_it_ends(
    caplog: pytest.LogCaptureFixture,
) -> None:
    health = DatabaseHealth()
    refused = ConnectionRefusedError(111, "Connect call failed")
    with caplog.at_level(logging.INFO, logger="bot.storage"):
        assert all(health.noticed(refused) for _ in range(20))
        assert health.down
        health.recovered()
        health.recovered()

    lines = [record.getMessage() for record in caplog.records]
    assert len(lines) == 2
    assert lines[0].startswith("The database is unreachable (ConnectionRefusedError:")
    assert lines[1].startswith("The database is reachable again after")
    assert not health.down
    assert all(record.exc_info is None for record in caplog.records)  # sentences, no tracebacks


def test_other_errors_are_left_to_the_caller_and_retries_back_off_up_to_a_cap() -> None:
    health = DatabaseHealth()
    assert not health.noticed(ValueError("a bug"))
    assert not health.down
    delays = []
    for _ in range(8):
        health.noticed(TimeoutError())
        delays.append(health.retry_delay())

    assert delays[:4] == [0.5, 1.0, 2.0, 4.0]
    assert delays[-1] == RETRY_MAX_SECONDS
    health.recovered()
    assert health.retry_delay() == 0.5
