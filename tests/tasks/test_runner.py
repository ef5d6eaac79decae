"""Due runs: claimed once across processes, on time or honestly late, paced, failures paused."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from bot.runtime.clock import ManualClock
from bot.storage.engine import Database
from bot.tasks.ledger import TaskLedger
from bot.tasks.runner import TaskRunner
from bot.tasks.service import TaskService, TaskView
from bot.tasks.table import RunStatus, TaskState
from tests.tasks.support import (
    CHANNEL_A,
    CHANNEL_B,
    GUILD_A,
    GUILD_B,
    TOKYO,
    RecordingDiscord,
    ScriptedRuns,
    service_on,
    spec,
)

SEVEN = datetime(2026, 11, 30, 7, 0, tzinfo=TOKYO).astimezone(UTC)


class Owner:
    """What the owner was told in their DMs."""

    def __init__(self) -> None:
        self.told: list[tuple[int, str]] = []

    async def __call__(self, task: TaskView, text: str) -> None:
        self.told.append((task.id, text))


def runner_of(
    database: Database,
    clock: ManualClock,
    runs: ScriptedRuns,
    discord: RecordingDiscord,
    *,
    owner: Owner | None = None,
    concurrency: int = 4,
    grace_minutes: int = 30,
    lease: timedelta = timedelta(minutes=2),
) -> TaskRunner:
    """One process's runner over the shared database."""
    return TaskRunner(
        TaskLedger(database.sessions, lease=lease),
        clock,
        runs,
        discord,
        grace=timedelta(minutes=grace_minutes),
        concurrency=concurrency,
        notify_owner=owner or Owner(),
    )


async def test_a_task_runs_at_its_due_minute_once_and_posts_in_its_channel(
    database: Database, clock: ManualClock
) -> None:
    service = service_on(database.sessions, clock)
    task = await service.create(spec())
    runs, discord = ScriptedRuns(), RecordingDiscord()
    runner = runner_of(database, clock, runs, discord)
    clock.set(SEVEN - timedelta(seconds=1))
    assert await runner.run_due() == 0
    clock.set(SEVEN)
    assert await runner.run_due() == 1
    assert await runner.run_due() == 0
    assert [(p.channel_id, p.text) for p in discord.posts] == [
        (CHANNEL_A, f"今日の天気は晴れです (#{task.id})")
    ]
    [run] = await service.history(task.id, GUILD_A)
    assert (run.status, run.due_at) == (RunStatus.ON_TIME, SEVEN)
    assert (await service.get(task.id, GUILD_A)).next_run_at == SEVEN + timedelta(days=1)  # type: ignore[union-attr]


async def test_two_processes_claim_each_run_once(database: Database, clock: ManualClock) -> None:
    service = service_on(database.sessions, clock)
    for _ in range(6):
        await service.create(spec())
        await service.create(spec(guild_id=GUILD_B, channel_id=CHANNEL_B))
    runs, discord = ScriptedRuns(), RecordingDiscord()
    first = runner_of(database, clock, runs, discord)
    second = runner_of(database, clock, runs, discord)
    clock.set(SEVEN)
    claimed = await asyncio.gather(first.run_due(), second.run_due())
    assert sum(claimed) == 12
    assert sorted(runs.calls) == sorted(set(runs.calls))
    assert len(discord.posts) == 12


async def test_a_run_whose_process_died_is_taken_over_and_posted_once(
    database: Database, clock: ManualClock
) -> None:
    service = service_on(database.sessions, clock)
    task = await service.create(spec())
    discord = RecordingDiscord()
    clock.set(SEVEN)
    # The first process claims the run, posts, and dies before it records the outcome.
    stuck = ScriptedRuns(hold=asyncio.Event())
    dying = asyncio.create_task(runner_of(database, clock, stuck, discord).run_due())
    await stuck.started.wait()
    assert stuck.calls == [task.id]
    await discord.post(
        task, f"今日の天気は晴れです (#{task.id})", f"t{task.id}d{int(SEVEN.timestamp()) // 60}"
    )
    dying.cancel()
    survivor = runner_of(database, clock, ScriptedRuns(), discord)
    assert await survivor.run_due() == 0  # its lease still holds
    clock.advance(timedelta(minutes=3))
    assert await survivor.run_due() == 1
    assert len(discord.posts) == 1
    [run] = await service.history(task.id, GUILD_A)
    assert run.status == RunStatus.LATE


async def test_a_run_due_while_down_inside_the_grace_posts_and_says_it_is_late(
    database: Database, clock: ManualClock
) -> None:
    service = service_on(database.sessions, clock)
    task = await service.create(spec(language="en", prompt="today's weather"))
    discord = RecordingDiscord()
    clock.set(SEVEN + timedelta(minutes=25))
    await runner_of(database, clock, ScriptedRuns(answer="Sunny"), discord).run_due()
    [post] = discord.posts
    assert post.text.startswith(f"Sunny (#{task.id})\n-# ⏰ Ran 25 min late (due <t:")
    [run] = await service.history(task.id, GUILD_A)
    assert (run.status, run.late_seconds) == (RunStatus.LATE, 25 * 60)


async def test_a_run_due_while_down_beyond_the_grace_is_skipped_with_one_line(
    database: Database, clock: ManualClock
) -> None:
    service = service_on(database.sessions, clock)
    task = await service.create(spec())
    runs, discord = ScriptedRuns(), RecordingDiscord()
    clock.set(SEVEN + timedelta(hours=2))
    runner = runner_of(database, clock, runs, discord)
    await runner.run_due()
    await runner.run_due()
    assert runs.calls == []
    [post] = discord.posts
    assert "\n" not in post.text
    assert post.text.startswith(f"⏭️ タスク #{task.id} の <t:")
    assert "Otomo が止まっていたため見送りました（2時間遅れ）" in post.text
    [run] = await service.history(task.id, GUILD_A)
    assert (run.status, run.reason) == (RunStatus.SKIPPED, "Otomo が止まっていました")
    # The next run is tomorrow's, not a second catch-up.
    assert (await service.get(task.id, GUILD_A)).next_run_at == SEVEN + timedelta(days=1)  # type: ignore[union-attr]


async def test_a_burst_calls_the_model_no_more_than_the_pacing_allows(
    database: Database, clock: ManualClock
) -> None:
    service = service_on(database.sessions, clock, max_per_server=100)
    for _ in range(30):
        await service.create(spec())
    runs, discord = ScriptedRuns(), RecordingDiscord()
    clock.set(SEVEN)
    assert await runner_of(database, clock, runs, discord, concurrency=3).run_due() == 30
    assert runs.peak == 3
    assert len(discord.posts) == 30


async def test_three_failures_in_a_row_pause_the_task_and_tell_the_owner_why(
    database: Database, clock: ManualClock
) -> None:
    service = service_on(database.sessions, clock)
    task = await service.create(spec(language="en"))
    owner = Owner()
    discord = RecordingDiscord(refuse="gone")
    runner = runner_of(database, clock, ScriptedRuns(), discord, owner=owner)
    for day in range(3):
        clock.set(SEVEN + timedelta(days=day))
        await runner.run_due()
        assert owner.told == [] or day == 2
    paused = await service.get(task.id, GUILD_A)
    assert paused is not None
    assert (paused.state, paused.paused_reason) == (TaskState.PAUSED, "the channel was deleted")
    assert owner.told == [
        (
            task.id,
            f"⏸️ Task #{task.id} “今日の天気とイベントをまとめて” failed 3 times in a row and is "
            "paused. Why: the channel was deleted. Once that is fixed, resume it in /otomo tasks.",
        )
    ]
    clock.set(SEVEN + timedelta(days=3))
    assert await runner.run_due() == 0


async def test_a_success_clears_the_failures_in_a_row(
    database: Database, clock: ManualClock
) -> None:
    service = service_on(database.sessions, clock)
    task = await service.create(spec())
    runs, discord = ScriptedRuns(failure="AI モデルに接続できませんでした"), RecordingDiscord()
    runner = runner_of(database, clock, runs, discord)
    for day in range(2):
        clock.set(SEVEN + timedelta(days=day))
        await runner.run_due()
    runs.failure = None
    clock.set(SEVEN + timedelta(days=2))
    await runner.run_due()
    runs.failure = "AI モデルに接続できませんでした"
    clock.set(SEVEN + timedelta(days=3))
    await runner.run_due()
    after = await service.get(task.id, GUILD_A)
    assert after is not None and after.state == TaskState.ACTIVE
    assert [r.status for r in await service.history(task.id, GUILD_A)] == [
        RunStatus.FAILED,
        RunStatus.ON_TIME,
        RunStatus.FAILED,
        RunStatus.FAILED,
    ]


async def test_run_now_runs_at_once_and_leaves_the_schedule_alone(
    database: Database, clock: ManualClock
) -> None:
    service: TaskService = service_on(database.sessions, clock)
    task = await service.create(spec())
    discord = RecordingDiscord()
    runner = runner_of(database, clock, ScriptedRuns(), discord)
    assert await runner.run_now(task) == RunStatus.ON_TIME
    assert len(discord.posts) == 1
    assert (await service.get(task.id, GUILD_A)).next_run_at == SEVEN  # type: ignore[union-attr]
    [run] = await service.history(task.id, GUILD_A)
    assert run.manual


async def test_a_one_time_task_finishes_after_its_run(
    database: Database, clock: ManualClock
) -> None:
    service = service_on(database.sessions, clock)
    task = await service.create(spec(once=True))
    clock.set(SEVEN)
    await runner_of(database, clock, ScriptedRuns(), RecordingDiscord()).run_due()
    done = await service.get(task.id, GUILD_A)
    assert done is not None and done.state == TaskState.FINISHED


async def test_a_spent_budget_skips_the_run_with_one_line_and_no_model_call(
    database: Database, clock: ManualClock
) -> None:
    service = service_on(database.sessions, clock)
    task = await service.create(spec(language="en"))
    other = await service.create(spec(guild_id=GUILD_B, channel_id=CHANNEL_B, language="en"))
    runs, discord = ScriptedRuns(), RecordingDiscord()

    async def gate(view: TaskView) -> str | None:
        return "today's usage limit is spent" if view.guild_id == GUILD_A else None

    runner = TaskRunner(
        TaskLedger(database.sessions),
        clock,
        runs,
        discord,
        grace=timedelta(minutes=30),
        concurrency=4,
        notify_owner=Owner(),
        gate=gate,
    )
    clock.set(SEVEN)
    assert await runner.run_due() == 2
    assert runs.calls == [other.id]
    skipped = next(p for p in discord.posts if p.task_id == task.id)
    assert skipped.text == (
        f"⏭️ Task #{task.id} due <t:{int(SEVEN.timestamp())}:f> was skipped: "
        "today's usage limit is spent"
    )
    [run] = await service.history(task.id, GUILD_A)
    assert (run.status, run.reason) == (RunStatus.SKIPPED, "today's usage limit is spent")
