"""Otomo as separate processes, started the way `make run` starts it (`python -m bot run`), for
the tests that kill a process, run two of them side by side or take their database away."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import insert, select

from bot.reminders.table import Reminder, ReminderState
from bot.storage import create_database
from tests.fakes.discord.gateway import GatewayGate
from tests.fakes.discord_server import GUILD_ID, HANA_ID, FakeChannel, FakeDiscord, Json, World
from tests.fakes.netguard import child_env

# A bot process imports litellm and janome before it connects: seconds on a loaded machine.
START_LIMIT = 120.0
FIRST_EXTRA_CHANNEL = 1_300_000_000_000_200_000


def process_environment(extra: dict[str, str]) -> dict[str, str]:
    """A clean environment (no developer .env) plus the network guard."""
    base = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG", "TMPDIR"}}
    base.update(extra)
    return child_env(base)


@dataclass
class BotProcess:
    """One `python -m bot run`, with its stderr lines kept (and timed) as they arrive."""

    environ: dict[str, str]
    cwd: Path
    lines: list[tuple[float, str]] = field(default_factory=list)
    _process: asyncio.subprocess.Process | None = None
    _reader: asyncio.Task[None] | None = None
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    async def start(self) -> BotProcess:
        """Start the process; returns at once (see wait_for_line)."""
        self._process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            "run",
            cwd=self.cwd,
            env=self.environ,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        self._reader = asyncio.create_task(self._read())
        return self

    @property
    def pid(self) -> int:
        """The process id."""
        assert self._process is not None
        return self._process.pid

    @property
    def log(self) -> str:
        """Everything the process wrote to stderr so far."""
        return "\n".join(line for _, line in self.lines)

    def count(self, text: str) -> int:
        """How many log lines contain text."""
        return sum(text in line for _, line in self.lines)

    async def wait_for_line(
        self,
        text: str,
        timeout: float = START_LIMIT,  # noqa: ASYNC109
        *,
        after: int = 0,
    ) -> tuple[float, str]:
        """The first line (from line number after on) containing text, with when it arrived."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            for arrived, line in self.lines[after:]:
                if text in line:
                    return arrived, line
            if self._reader is not None and self._reader.done():
                raise AssertionError(f"the bot exited before logging {text!r}:\n{self.log[-3000:]}")
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"no {text!r} in {timeout}s; the log:\n{self.log[-3000:]}")
            event = self._changed
            try:
                await asyncio.wait_for(event.wait(), remaining)
            except TimeoutError:
                continue

    async def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as when the machine or the OOM killer stops it."""
        await self._end(signal.SIGKILL)

    async def stop(self) -> int:
        """SIGTERM, as an operator stops it; returns the exit code."""
        return await self._end(signal.SIGTERM)

    async def _end(self, how: signal.Signals) -> int:
        assert self._process is not None
        if self._process.returncode is None:
            self._process.send_signal(how)
        code = await asyncio.wait_for(self._process.wait(), 60)
        if self._reader is not None:
            await asyncio.wait_for(self._reader, 10)
        return code

    async def _read(self) -> None:
        assert self._process is not None and self._process.stderr is not None
        async for raw in self._process.stderr:
            self.lines.append((time.monotonic(), raw.decode(errors="replace").rstrip()))
            event, self._changed = self._changed, asyncio.Event()
            event.set()
        event, self._changed = self._changed, asyncio.Event()
        event.set()


async def admit_next(gate: GatewayGate, waiting: list[BotProcess]) -> BotProcess:
    """Let the next warm process through the gateway gate; returns it (and drops it from
    waiting) once it says it connected."""
    await asyncio.wait_for(gate.someone_waiting(), START_LIMIT)
    gate.admit_one()
    watches = {
        asyncio.ensure_future(process.wait_for_line("has connected to Gateway")): process
        for process in waiting
    }
    try:
        done, _ = await asyncio.wait(watches, timeout=START_LIMIT, return_when="FIRST_COMPLETED")
    finally:
        for watch in watches:
            watch.cancel()
    if not done:
        tails = "\n---\n".join(process.log[-1500:] for process in waiting)
        raise AssertionError(f"no admitted process connected in {START_LIMIT}s:\n{tails}")
    finished = next(iter(done))
    finished.result()  # raises if that process exited instead
    admitted = watches[finished]
    waiting.remove(admitted)
    return admitted


def world_with_channels(count: int) -> World:
    """The default guild plus count more text channels."""
    world = World.default()
    world.channels.extend(
        FakeChannel(FIRST_EXTRA_CHANNEL + n, f"extra-{n}", position=20 + n) for n in range(count)
    )
    return world


def extra_channels(count: int) -> list[int]:
    """The ids of the channels world_with_channels(count) adds."""
    return [FIRST_EXTRA_CHANNEL + n for n in range(count)]


async def seed_due_reminders(
    database_url: str, channels: Iterable[int], *, guild_id: int = GUILD_ID
) -> list[int]:
    """One reminder per entry of channels, all due now, written straight into the table."""
    now = datetime.now(UTC)
    rows: list[dict[str, Any]] = [
        {
            "guild_id": guild_id,
            "channel_id": channel_id,
            "user_id": HANA_ID,
            "user_display_name": "Hana",
            "content": f"用事 {n}",
            "due_at": now,
            "timezone": "Asia/Tokyo",
            "repeat": None,
            "occurrence": 1,
            "state": ReminderState.PENDING,
            "attempts": 0,
            "retries": 0,
            "next_attempt_at": now,
            "created_at": now,
        }
        for n, channel_id in enumerate(channels)
    ]
    database = create_database(database_url)
    try:
        async with database.sessions() as session, session.begin():
            result = await session.execute(insert(Reminder).returning(Reminder.id), rows)
            return sorted(result.scalars())
    finally:
        await database.dispose()


async def reminder_rows(database_url: str) -> list[Reminder]:
    """Every reminder row as stored now."""
    database = create_database(database_url)
    try:
        async with database.sessions() as session:
            return list(await session.scalars(select(Reminder).order_by(Reminder.id)))
    finally:
        await database.dispose()


async def settled_rows(
    database_url: str,
    count: int,
    timeout: float,  # noqa: ASYNC109
) -> list[Reminder]:
    """The reminder rows once count of them are no longer pending (posted and marked)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        rows = await reminder_rows(database_url)
        settled = [row for row in rows if row.state != ReminderState.PENDING]
        if len(settled) >= count or loop.time() >= deadline:
            return rows
        await asyncio.sleep(0.2)


def reminder_messages(fake: FakeDiscord, channels: Iterable[int]) -> dict[str, list[Json]]:
    """Reminder messages in the channels now, by nonce (`r<id>o<occurrence>`)."""
    found: dict[str, list[Json]] = {}
    for channel_id in channels:
        for message in fake.messages(channel_id):
            nonce = str(message.get("nonce") or "")
            if nonce.startswith("r"):
                found.setdefault(nonce, []).append(message)
    return found


def reminder_posts_since(fake: FakeDiscord, since: float) -> list[float]:
    """When the fake received each reminder POST at or after since (time.monotonic())."""
    return [
        r.at
        for r in fake.requests
        if r.at >= since
        and r.method == "POST"
        and r.path.endswith("/messages")
        and isinstance(r.json, dict)
        and str(r.json.get("nonce") or "").startswith("r")
    ]
