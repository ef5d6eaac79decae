"""Two bot processes and a SIGKILL in the middle of a task's run: the run is taken over by the
other process and its answer is posted once (the nonce makes Discord drop the second copy).

Both run as `make run` runs them, on both databases, against one fake Discord and one scripted
model; the fake holds its answer to the first post, the moment where a kill leaves a run posted
but not recorded.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select, update

from bot.runtime.clock import SystemClock
from bot.schedule.repeat import RepeatRule
from bot.storage import create_database
from bot.tasks.service import TaskService, TaskSpec
from bot.tasks.table import RunStatus, Task, TaskRun
from tests.e2e.harness import bot_environment
from tests.e2e.processes import BotProcess, process_environment
from tests.fakes.discord_server import ADMIN_ID, GENERAL_CHANNEL_ID, GUILD_ID, FakeDiscord
from tests.fakes.llm_server import ScriptedLLM, text

pytestmark = pytest.mark.e2e

# A process starts in seconds (slower on a loaded machine); the takeover waits for the lease
# and the survivor's next minute.
LIMIT = 150.0
ANSWER = "おはようございます。今日は晴れです。"


async def seed_due_task(database_url: str) -> int:
    """A daily task of #general, due a few seconds ago."""
    database = create_database(database_url)
    try:
        service = TaskService(
            database.sessions, SystemClock(), max_per_server=0, min_interval_minutes=60
        )
        tomorrow = datetime.now(UTC) + timedelta(days=1)
        view = await service.create(
            TaskSpec(
                guild_id=GUILD_ID,
                owner_id=ADMIN_ID,
                owner_name="kenji",
                channel_id=GENERAL_CHANNEL_ID,
                to_dm=False,
                prompt="今日の天気をまとめて",
                language="ja",
                timezone=ZoneInfo("UTC"),
                first_run=tomorrow.strftime("%Y-%m-%dT%H:%M"),
                repeat=RepeatRule(kind="daily"),
                tools=(),
            )
        )
        async with database.sessions() as session, session.begin():
            await session.execute(
                update(Task)
                .where(Task.id == view.id)
                .values(next_run_at=datetime.now(UTC) - timedelta(seconds=5))
            )
        return view.id
    finally:
        await database.dispose()


async def runs_of(database_url: str) -> list[TaskRun]:
    """Every run recorded."""
    database = create_database(database_url)
    try:
        async with database.sessions() as session:
            return list(await session.scalars(select(TaskRun)))
    finally:
        await database.dispose()


async def recorded(database_url: str) -> list[TaskRun]:
    """The runs once one is recorded as posted (the survivor took the dead process's over)."""
    for _ in range(int(LIMIT)):
        runs = await runs_of(database_url)
        if any(run.status in (RunStatus.ON_TIME, RunStatus.LATE) for run in runs):
            return runs
        await asyncio.sleep(1)
    raise AssertionError("the run was never taken over")


async def test_a_run_killed_mid_post_is_taken_over_by_the_other_process_and_posted_once(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, database_url: str
) -> None:
    llm.rule = lambda request: text(ANSWER)
    task_id = await seed_due_task(database_url)
    environ = process_environment(
        bot_environment(fake, llm, tmp_path, DATABASE_URL=database_url, TASK_RUN_LEASE_SECONDS=5)
    )
    hold = fake.hold_after_accepting(GENERAL_CHANNEL_ID)
    first = await BotProcess(environ, tmp_path).start()
    held = await hold.wait_accepted(LIMIT)
    second = await BotProcess(environ, tmp_path).start()
    await second.wait_for_line("Otomo is ready", LIMIT)
    await first.kill()
    hold.release()

    finished = await recorded(database_url)
    assert await second.stop() == 0

    posts = [m for m in fake.messages(GENERAL_CHANNEL_ID) if m.get("nonce") == held["nonce"]]
    assert len(posts) == 1 and posts[0]["content"] == ANSWER
    assert held["nonce"].startswith(f"t{task_id}d")
    (run,) = finished
    assert run.message_id == int(held["id"])
