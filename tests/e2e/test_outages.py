"""The database goes away in the middle of a burst of reminders and comes back: PostgreSQL
restarted (a server of the test's own, never the shared one), or the SQLite file locked by
another program for longer than the bot waits for a lock.

Meanwhile the bot stays connected and answers a mention with one sentence (conversations,
approvals and reminders all live in the database, so it cannot do more); it logs one sentence
when the database goes away and one when it is back, no tracebacks; it reconnects by itself and
then posts every reminder exactly once.
"""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from bot.i18n import answers
from bot.reminders.table import ReminderState
from bot.storage import create_database
from bot.storage.migrate import upgrade
from tests.e2e.harness import bot_environment
from tests.e2e.processes import (
    BotProcess,
    extra_channels,
    process_environment,
    reminder_messages,
    seed_due_reminders,
    settled_rows,
    world_with_channels,
)
from tests.fakes.discord.records import RecordedRequest
from tests.fakes.discord.rules import walk_components
from tests.fakes.discord.world import Json
from tests.fakes.discord_server import HANA_ID, FakeDiscord
from tests.fakes.llm_server import ScriptedLLM
from tests.private_postgres import PrivatePostgres, available, private_postgres

pytestmark = pytest.mark.e2e

CHANNELS = 4
PER_CHANNEL = 10  # twice Discord's 5 per 5 s: the second half waits in the bot's lanes
DOWN = "The database is unreachable"
BACK = "The database is reachable again"
LIMIT = 120.0
REMINDER_NONCE = re.compile(r"r\d+o\d+")
# Holds SQLite's write lock until its stdin closes, as another program using the file would.
LOCKER = (
    "import sqlite3, sys\n"
    "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
    "db.execute('BEGIN EXCLUSIVE')\n"
    "print('locked', flush=True)\n"
    "sys.stdin.read()\n"
    "db.execute('ROLLBACK')\n"
)

# (database URL, take it away, bring it back)
Outage = tuple[str, Callable[[], Awaitable[None]], Callable[[], Awaitable[None]]]


@asynccontextmanager
async def postgres_restart() -> AsyncIterator[Outage]:
    """A PostgreSQL server of this test's own, stopped and started again."""
    problem = available()
    if problem is not None:
        pytest.skip(f"a private PostgreSQL server is needed: {problem}")
    async with private_postgres() as server:
        database = create_database(server.url)
        try:
            await upgrade(database)
        finally:
            await database.dispose()

        async def away(pg: PrivatePostgres = server) -> None:
            await pg.stop("fast")

        yield server.url, away, server.start


@asynccontextmanager
async def sqlite_lock(url: str) -> AsyncIterator[Outage]:
    """The SQLite file, write-locked by another process until released."""
    path = make_url(url).database
    assert path
    lockers: list[asyncio.subprocess.Process] = []

    async def away() -> None:
        locker = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            LOCKER,
            path,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        lockers.append(locker)
        assert locker.stdout is not None
        assert await asyncio.wait_for(locker.stdout.readline(), LIMIT) == b"locked\n"

    async def back() -> None:
        locker = lockers.pop()
        assert locker.stdin is not None
        locker.stdin.close()
        assert await asyncio.wait_for(locker.wait(), LIMIT) == 0

    try:
        yield url, away, back
    finally:
        for locker in lockers:
            locker.kill()
            await locker.wait()


def _reminder_post(request: RecordedRequest, channels: list[int]) -> bool:
    """Whether request posts a reminder (its nonce is `r<id>o<occurrence>`) in channels."""
    nonce = str((request.json or {}).get("nonce") or "") if isinstance(request.json, dict) else ""
    return (
        request.method == "POST"
        and REMINDER_NONCE.fullmatch(nonce) is not None
        and any(request.path == f"/channels/{channel}/messages" for channel in channels)
    )


async def _clicks_during_outage(fake: FakeDiscord, channels: list[int]) -> list[Json]:
    """Run /timezone set and click Done under a posted reminder: both need the database.

    Only while PostgreSQL is down: a SQLite write waits out its 5 s lock timeout, longer than
    the 3 s Discord gives an interaction to be answered."""
    posted = next(iter(reminder_messages(fake, channels).values()))[0]
    done = next(
        component["custom_id"]
        for component in walk_components(posted["components"])
        if str(component.get("custom_id", "")).endswith(":done")
    )
    command = await fake.invoke_slash(
        "timezone set", {"name": "Asia/Tokyo"}, user_id=HANA_ID, channel_id=channels[0]
    )
    click = await fake.click_button(int(posted["id"]), done, user_id=HANA_ID)
    return [await command.wait_response(LIMIT), await click.wait_response(LIMIT)]


async def test_the_database_goes_away_mid_burst_and_comes_back(
    tmp_path: Path, llm: ScriptedLLM, database_engine: str, database_url: str
) -> None:
    outage = postgres_restart() if database_engine == "postgresql" else sqlite_lock(database_url)
    channels = extra_channels(CHANNELS)
    async with outage as (url, away, back), FakeDiscord(world_with_channels(CHANNELS)) as fake:
        ids = await seed_due_reminders(url, channels * PER_CHANNEL)
        environ = process_environment(bot_environment(fake, llm, tmp_path, DATABASE_URL=url))
        bot = await BotProcess(environ, tmp_path).start()
        try:
            await fake.wait_until(
                lambda: len(reminder_messages(fake, channels)) >= CHANNELS, LIMIT, what="posts"
            )
            # The rest of the burst waits at Discord while the database goes away, so the outage
            # falls in the middle of the burst however long stopping the server takes.
            rest = fake.pause_requests(lambda request: _reminder_post(request, channels))
            # Counted before the outage starts: the bot may notice it before away() returns.
            went_away = len(bot.lines)
            await away()
            before = len(reminder_messages(fake, channels))
            rest.release()
            await bot.wait_for_line(DOWN, LIMIT, after=went_away)
            mention = await fake.send_user_message(
                channels[0], HANA_ID, f"<@{fake.world.bot.id}> 元気？", mention_bot=True
            )
            # Its reply, not a reminder that the lanes post in the same channel meanwhile.
            answer = await fake.wait_for_message(
                channels[0],
                lambda m: (m.get("message_reference") or {}).get("message_id") == mention["id"],
                after=int(mention["id"]),
                timeout=LIMIT,
            )
            clicks = (
                await _clicks_during_outage(fake, channels)
                if database_engine == "postgresql"
                else []
            )
            await back()
            await bot.wait_for_line(BACK, LIMIT, after=went_away)
            await fake.wait_until(
                lambda: len(reminder_messages(fake, channels)) == len(ids), LIMIT, what="all posts"
            )
            rows = await settled_rows(url, len(ids), LIMIT)
        finally:
            code = await bot.stop()

    log_since = "\n".join(line for _, line in bot.lines[went_away:])
    assert code == 0
    assert answer["content"] == answers.DATABASE_UNREACHABLE("ja")
    for response in clicks:  # a slash command and a reminder button, each told privately
        assert response["type"] == 4
        assert response["data"]["content"] == answers.DATABASE_UNREACHABLE_ACTION("ja")
        assert response["data"]["flags"] & 64
    assert bot.count(DOWN) == 1 and bot.count(BACK) == 1  # one sentence each way
    assert "Traceback" not in log_since, log_since[-3000:]
    assert before < len(ids)  # the outage fell in the middle of the burst
    by_nonce = reminder_messages(fake, channels)
    assert sorted(by_nonce) == sorted(f"r{reminder_id}o1" for reminder_id in ids)
    assert all(len(messages) == 1 for messages in by_nonce.values())
    undelivered = [(row.id, row.state, row.last_error) for row in rows]
    assert [row for row in undelivered if row[1] != ReminderState.DELIVERED] == []
