"""1,000 scheduled tasks due in the same minute across 100 channels: how the burst is carried.

Seeds the tasks in a SQLite file (the migrated schema), sets the clock to their due minute and
runs them through the real runner and ledger (claims, leases, pacing of model calls) with a
scripted instant model, posting through the real send pacer (5 messages per 5 s per channel,
50 per second for the bot). Meanwhile a member mentions the bot every 100 ms; each mention's
model call starts when the event loop gets to it (mentions never wait on the tasks' pacing).
Prints time-to-post p50/p99, the peak of concurrent model calls, and how long the mentions
waited. `--short` runs 100 tasks across 20 channels (seconds, for a quick look).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.runtime.clock import ManualClock
from bot.runtime.pacing import SendPacer
from bot.schedule.repeat import RepeatRule
from bot.storage import create_database
from bot.storage.migrate import upgrade
from bot.tasks.ledger import RunClaim, TaskLedger
from bot.tasks.runner import Answer, RunResult, TaskRunner
from bot.tasks.service import TaskService, TaskSpec, TaskView

TOKYO = ZoneInfo("Asia/Tokyo")
DUE = datetime(2027, 1, 4, 7, 0, tzinfo=TOKYO)
MENTION_EVERY = 0.1


@dataclass
class InstantModel:
    """Answers at once; counts the calls in flight."""

    running: int = 0
    peak: int = 0

    async def execute(self, claim: RunClaim) -> RunResult:
        self.running += 1
        self.peak = max(self.peak, self.running)
        try:
            await asyncio.sleep(0)
            return Answer(f"今日のまとめ #{claim.task.id}")
        finally:
            self.running -= 1


@dataclass
class PacedDiscord:
    """Posts through the real pacer; when each task's post went out."""

    pacer: SendPacer
    started: float = 0.0
    posted: dict[int, float] = field(default_factory=dict)

    async def post(self, task: TaskView, text: str, nonce: str) -> int:
        await self.pacer.wait_channel(task.channel_id)
        await self.pacer.wait_turn(task.channel_id)
        self.posted[task.id] = time.monotonic() - self.started
        return task.id


async def owner_told(task: TaskView, text: str) -> None:
    """No owner is told anything in this bench."""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run(tasks: int, channels: int, concurrency: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        database = create_database(f"sqlite+aiosqlite:///{folder}/bench.db")
        await upgrade(database)
        clock = ManualClock(DUE - timedelta(hours=1))
        service = TaskService(database.sessions, clock, max_per_server=0, min_interval_minutes=60)
        seeding = time.monotonic()
        for n in range(tasks):
            channel = n % channels
            await service.create(
                TaskSpec(
                    guild_id=1000 + channel % 10,
                    owner_id=5000 + n,
                    owner_name=f"member{n}",
                    channel_id=2000 + channel,
                    to_dm=False,
                    prompt="今日の天気とイベントをまとめて",
                    language="ja",
                    timezone=TOKYO,
                    first_run=DUE.strftime("%Y-%m-%dT%H:%M"),
                    repeat=RepeatRule(kind="daily"),
                    tools=("get_forecast", "search_knowledge"),
                )
            )
        print(
            f"seeded {tasks:,} tasks across {channels} channels in "
            f"{time.monotonic() - seeding:.1f} s (SQLite file, migrated schema)"
        )
        model = InstantModel()
        discord = PacedDiscord(SendPacer(50.0))
        runner = TaskRunner(
            TaskLedger(database.sessions),
            clock,
            model,
            discord,
            grace=timedelta(minutes=30),
            concurrency=concurrency,
            notify_owner=owner_told,
        )
        clock.set(DUE)
        waits: list[float] = []
        done = asyncio.Event()

        async def member() -> None:
            # A mention arrives; its model call starts when the loop gets to it.
            while not done.is_set():
                arrived = time.monotonic()
                await asyncio.sleep(0)
                waits.append(time.monotonic() - arrived)
                await asyncio.sleep(MENTION_EVERY)

        mentions = asyncio.create_task(member())
        discord.started = time.monotonic()
        claimed = await runner.run_due()
        took = time.monotonic() - discord.started
        done.set()
        await mentions
        await database.dispose()
    posts = list(discord.posted.values())
    print(f"claimed {claimed:,} runs, posted {len(posts):,} in {took:.1f} s")
    print(
        f"time to post: p50 {percentile(posts, 0.5):.2f} s, p99 {percentile(posts, 0.99):.2f} s,"
        f" last {max(posts):.2f} s"
    )
    print(f"peak concurrent model calls: {model.peak} (TASK_MAX_CONCURRENT_RUNS={concurrency})")
    print(
        f"a member's mention meanwhile ({len(waits)} mentions): waited p50 "
        f"{percentile(waits, 0.5) * 1000:.1f} ms, max {max(waits) * 1000:.1f} ms for the loop"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--channels", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--short", action="store_true", help="100 tasks across 20 channels")
    args = parser.parse_args()
    if args.short:
        args.tasks, args.channels = 100, 20
    asyncio.run(run(args.tasks, args.channels, args.concurrency))


if __name__ == "__main__":
    main()
