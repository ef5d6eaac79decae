"""Console mode delivers its due reminders to the terminal while it runs, and only its own."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.app.console import CONSOLE_CHANNEL_ID, CONSOLE_USER_ID
from bot.reminders.table import Reminder, ReminderState
from bot.storage import create_database
from bot.storage.migrate import upgrade
from tests.e2e.test_console import start_console
from tests.fakes.discord_server import GENERAL_CHANNEL_ID, HANA_ID
from tests.fakes.llm_server import ScriptedLLM

pytestmark = pytest.mark.e2e


def _reminder(channel_id: int, user_id: int, content: str, due_at: datetime) -> Reminder:
    now = datetime.now(UTC)
    return Reminder(
        guild_id=None,
        channel_id=channel_id,
        user_id=user_id,
        user_display_name="you",
        content=content,
        due_at=due_at,
        timezone="Asia/Tokyo",
        repeat=None,
        occurrence=0,
        state=ReminderState.PENDING,
        attempts=0,
        retries=0,
        next_attempt_at=due_at,
        created_at=now,
    )


async def _read_until(stream: asyncio.StreamReader, marker: str, seen: list[str]) -> None:
    while not any(marker in line for line in seen):
        line = await stream.readline()
        if not line:
            raise AssertionError(f"console ended before {marker!r}: {seen}")
        seen.append(line.decode())


async def test_the_console_prints_due_reminders_while_it_waits_and_leaves_discord_ones(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'c.db'}"
    database = create_database(url)
    await upgrade(database)
    now = datetime.now(UTC)
    async with database.sessions() as session, session.begin():
        session.add_all(
            [
                _reminder(
                    CONSOLE_CHANNEL_ID, CONSOLE_USER_ID, "歯医者の予約", now - timedelta(minutes=5)
                ),
                _reminder(
                    CONSOLE_CHANNEL_ID,
                    CONSOLE_USER_ID,
                    "洗濯物を取り込む",
                    now + timedelta(seconds=20),  # after the console is up (start takes seconds)
                ),
                _reminder(
                    GENERAL_CHANNEL_ID, HANA_ID, "ディスコードの予定", now - timedelta(minutes=1)
                ),
            ]
        )
    await database.dispose()
    process = await start_console(llm, url, tmp_path)
    assert process.stdin is not None and process.stdout is not None
    seen: list[str] = []
    try:
        # Nothing is typed: the reminders arrive on their own while the console waits for input.
        await asyncio.wait_for(_read_until(process.stdout, "洗濯物を取り込む", seen), 60)
        process.stdin.write(b"/quit\n")
        await process.stdin.drain()
        rest, stderr = await asyncio.wait_for(process.communicate(), 30)
    finally:
        if process.returncode is None:
            process.kill()
    output = "".join(seen) + rest.decode()

    assert process.returncode == 0, stderr.decode()[-2000:]
    assert "⏰ 歯医者の予約" in output and "遅れ" in output  # overdue: delivered at once, late
    assert "⏰ 洗濯物を取り込む" in output
    # Printed while the console waited at its prompt, and the prompt shown again after it.
    assert output.index("you> ") < output.index("⏰ 洗濯物を取り込む") < output.rindex("you> ")
    assert "ディスコードの予定" not in output  # a Discord reminder is the bot's to post
    database = create_database(url)
    async with database.sessions() as session:
        states = {r.content: r.state for r in await session.scalars(select(Reminder))}
    await database.dispose()
    assert states == {
        "歯医者の予約": ReminderState.DELIVERED,
        "洗濯物を取り込む": ReminderState.DELIVERED,
        "ディスコードの予定": ReminderState.PENDING,
    }
