"""A scripted model run and a recording Discord for the tasks' runner, and a task to run."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.runtime.clock import Clock
from bot.schedule.repeat import RepeatRule
from bot.tasks.ledger import RunClaim
from bot.tasks.runner import Answer, PostFailed, RunFailed, RunResult
from bot.tasks.service import TaskService, TaskSpec, TaskView

TOKYO = ZoneInfo("Asia/Tokyo")
GUILD_A = 111
GUILD_B = 222
CHANNEL_A = 1001
CHANNEL_B = 2001
OWNER = 42


@dataclass
class ScriptedRuns:
    """Answers every run with a sentence naming its task; can fail, or hold runs open."""

    answer: str = "今日の天気は晴れです"
    failure: str | None = None
    hold: asyncio.Event | None = None
    calls: list[int] = field(default_factory=list)
    running: int = 0
    peak: int = 0
    started: asyncio.Event = field(default_factory=asyncio.Event)

    async def execute(self, claim: RunClaim) -> RunResult:
        self.calls.append(claim.task.id)
        self.started.set()
        self.running += 1
        self.peak = max(self.peak, self.running)
        try:
            if self.hold is not None:
                await self.hold.wait()
            else:
                await asyncio.sleep(0)
            if self.failure is not None:
                raise RunFailed(self.failure)
            return Answer(f"{self.answer} (#{claim.task.id})")
        finally:
            self.running -= 1


@dataclass
class Post:
    task_id: int
    channel_id: int
    text: str
    nonce: str


@dataclass
class RecordingDiscord:
    """Keeps posts; a repeated nonce returns the first message, as Discord does."""

    posts: list[Post] = field(default_factory=list)
    refuse: str | None = None
    _by_nonce: dict[str, int] = field(default_factory=dict)

    async def post(self, task: TaskView, text: str, nonce: str) -> int:
        if self.refuse is not None:
            raise PostFailed("gone" if self.refuse == "gone" else "refused")
        if nonce in self._by_nonce:
            return self._by_nonce[nonce]
        self.posts.append(Post(task.id, task.channel_id, text, nonce))
        self._by_nonce[nonce] = len(self.posts)
        return len(self.posts)


def spec(
    *,
    guild_id: int | None = GUILD_A,
    channel_id: int = CHANNEL_A,
    first_run: str = "2026-11-30T07:00",
    repeat: dict[str, object] | None = None,
    prompt: str = "今日の天気とイベントをまとめて",
    language: str = "ja",
    owner_id: int = OWNER,
    once: bool = False,
) -> TaskSpec:
    """A daily task at 07:00 Tokyo (or once), starting the morning after the suite's clock."""
    rule = RepeatRule.model_validate(repeat if repeat is not None else {"kind": "daily"})
    return TaskSpec(
        guild_id=guild_id,
        owner_id=owner_id,
        owner_name="hana",
        channel_id=channel_id,
        to_dm=guild_id is None,
        prompt=prompt,
        language="en" if language == "en" else "ja",
        timezone=TOKYO,
        first_run=first_run,
        repeat=None if once else rule,
        tools=("get_weather_forecast", "search_knowledge"),
    )


def service_on(
    sessions: async_sessionmaker[AsyncSession], clock: Clock, **limits: int
) -> TaskService:
    """The service with the environment's default limits unless given."""
    return TaskService(
        sessions,
        clock,
        max_per_server=limits.get("max_per_server", 20),
        min_interval_minutes=limits.get("min_interval_minutes", 60),
    )
