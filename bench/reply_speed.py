"""Reply speed and footprint of Otomo beside a minimal discord.py bot, measured from outside.

Otomo runs as `make run` runs it (`python -m bot run`, a file SQLite database) against the test
fakes: the fake Discord and an instant scripted model. Beside it, in the same fakes, runs the
bench's own minimal discord.py bot (the shape of llmcord: typing, one streamed model call, one
reply). Each bot is started a few times; printed, as medians:

- warm reply: mention sent -> the reply's final content is on Discord (no cursor);
- first reply after ready: the same, for the first mention after the bot said it was ready;
- start -> ready: process start to "ready" (Otomo's log line; the minimal bot's on_ready);
- RSS after the first reply (the bot process and any process it started), and its anonymous
  part (the rest is pages of mapped files: it varies with the page cache);
- Discord REST calls per plain reply (typing, posts, edits, counted after the reply settled);
- database sessions and statements between a mention and the model's request (Otomo run in
  this process through the tests' harness, so the engine's events can be counted).

Targets: warm reply <= 0.8 x the minimal bot's; first reply <= 1.5 x warm; ready <= 3 s;
RSS after the first reply <= 300 MB; 2 REST calls per plain reply; <= 3 database sessions
(the reads and the member's message) before the model call. Each target line ends in ok or
MISSED.

Run `python bench/reply_speed.py` (about two minutes) or `--short` (one start each, a few
replies: about 40 s).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import event
from sqlalchemy.orm import Session

from tests.e2e.harness import bot_environment, running_bot
from tests.e2e.processes import BotProcess
from tests.fakes.discord_server import (
    GENERAL_CHANNEL_ID,
    FakeDiscord,
    FakeMember,
    FakeUser,
    Json,
    World,
)
from tests.fakes.llm_server import ChatRequest, Reply, ScriptedLLM, text
from tests.fakes.netguard import child_env

OTOMO_READY = "Otomo is ready"
MINIMAL_READY = "minimal bot ready"
ANSWER = "はい、お返事です。今日もいい天気ですね。"
TARGET_WARM_FACTOR = 0.8
TARGET_FIRST_FACTOR = 1.5
TARGET_READY_S = 3.0
TARGET_RSS_MB = 300.0
TARGET_CALLS = 2
TARGET_SESSIONS = 3
FIRST_MEMBER = 1_300_000_000_000_400_000
# After a reply's final content, how long to wait for the edits that follow it (cursor, Stop).
SETTLE_SECONDS = 1.5

# The stand-in for llmcord: typing while one streamed model call runs, then one reply.
MINIMAL_BOT = """
import os, sys, time
import discord, yarl
from openai import AsyncOpenAI

discord.http.Route.BASE = os.environ["DISCORD_API_BASE"].rstrip("/")
discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["DISCORD_GATEWAY_URL"])
intents = discord.Intents.default()
intents.message_content = True
client = discord.Client(intents=intents, allowed_mentions=discord.AllowedMentions.none())
model = AsyncOpenAI(base_url=os.environ["LLM_API_BASE"], api_key="bench")

@client.event
async def on_ready():
    print("minimal bot ready", file=sys.stderr, flush=True)

@client.event
async def on_message(message):
    if message.author.bot or client.user not in message.mentions:
        return
    async with message.channel.typing():
        stream = await model.chat.completions.create(
            model="test-model",
            messages=[{"role": "user", "content": message.content}],
            stream=True,
        )
        parts = [c.choices[0].delta.content or "" async for c in stream if c.choices]
    await message.reply("".join(parts), mention_author=False)

client.run(os.environ["DISCORD_TOKEN"], log_handler=None)
"""


def _world(members: int) -> World:
    world = World.default()
    for n in range(members):
        user_id = FIRST_MEMBER + n
        world.users.append(FakeUser(user_id, f"member{n}", f"Member {n}"))
        world.members.append(FakeMember(user_id, []))
    return world


def _own_memory_mb(pid: int) -> tuple[float, float]:
    """The process's resident memory: anonymous (its heap) and file-backed (mapped libraries
    and files, which count only while their pages are in the page cache, so they vary)."""
    found = {"RssAnon:": 0.0, "RssFile:": 0.0, "RssShmem:": 0.0}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name = line.split(maxsplit=1)[0] if line else ""
        if name in found:
            found[name] = int(line.split()[1]) / 1024
    return found["RssAnon:"], found["RssFile:"] + found["RssShmem:"]


def _memory_mb(pid: int) -> tuple[float, float]:
    """Resident memory (anonymous, file-backed) of the process and every process it started."""
    anonymous, files, pending = 0.0, 0.0, [pid]
    while pending:
        current = pending.pop()
        own_anonymous, own_files = _own_memory_mb(current)
        anonymous, files = anonymous + own_anonymous, files + own_files
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == current:
                pending.append(int(entry.name))
    return anonymous, files


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class _Process(BotProcess):
    """A bot process started by any command (BotProcess starts `python -m bot run`)."""

    command: list[str] = field(default_factory=list)

    async def start(self) -> _Process:
        """Start the command; returns at once."""
        self._process = await asyncio.create_subprocess_exec(
            *self.command,
            cwd=self.cwd,
            env=self.environ,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        self._reader = asyncio.create_task(self._read())
        return self


@dataclass
class Figures:
    """What one bot measured, over its starts."""

    name: str
    ready: list[float] = field(default_factory=list)
    # CPU time used to get ready: the start-up's cost apart from how loaded the machine is.
    ready_cpu: list[float] = field(default_factory=list)
    first: list[float] = field(default_factory=list)
    warm: list[float] = field(default_factory=list)
    rss: list[float] = field(default_factory=list)
    # The anonymous part of it (the rest is pages of mapped files, which vary with the cache).
    anonymous: list[float] = field(default_factory=list)
    calls: list[int] = field(default_factory=list)
    call_kinds: str = ""


class Members:
    """A new member for every mention: Otomo's per-member limits never refuse one."""

    def __init__(self) -> None:
        self._next = FIRST_MEMBER

    def take(self) -> int:
        member, self._next = self._next, self._next + 1
        return member


def _final_reply(fake: FakeDiscord, sent: Json) -> Callable[[], Json | None]:
    def find() -> Json | None:
        for message in reversed(fake.messages(GENERAL_CHANNEL_ID)):
            if int(message["id"]) <= int(sent["id"]):
                return None
            reference = (message.get("message_reference") or {}).get("message_id")
            if reference == sent["id"] and message["content"] == ANSWER:
                return message
        return None

    return find


async def _reply_seconds(
    fake: FakeDiscord, user_id: int, settle: bool = False
) -> tuple[float, list[str]]:
    """Mention the bot; seconds until its reply's final content is on Discord, and the REST
    calls in its channel (with settle: those of the edits that follow too)."""
    before = len(fake.requests)
    started = time.perf_counter()
    sent = await fake.send_user_message(GENERAL_CHANNEL_ID, user_id, "こんにちは", mention_bot=True)
    await fake.wait_until(_final_reply(fake, sent), timeout=120, what="the final reply")
    seconds = time.perf_counter() - started
    if settle:
        await asyncio.sleep(SETTLE_SECONDS)
    calls = [
        f"{r.method} {r.route or r.path}"
        for r in fake.requests[before:]
        if str(GENERAL_CHANNEL_ID) in r.path
    ]
    return seconds, calls


async def _one_start(
    fake: FakeDiscord,
    figures: Figures,
    members: Members,
    command: list[str],
    environ: dict[str, str],
    folder: Path,
    ready_line: str,
    warm_replies: int,
) -> bool:
    bot = _Process(child_env(environ), folder, command=command)
    started = time.perf_counter()
    await bot.start()
    try:
        try:
            await bot.wait_for_line(ready_line, 120)
        except AssertionError as never:
            print(never)
            return False
        figures.ready.append(time.perf_counter() - started)
        figures.ready_cpu.append(_cpu_seconds(bot.pid))
        figures.first.append((await _reply_seconds(fake, members.take()))[0])
        await asyncio.sleep(0.5)
        anonymous, files = _memory_mb(bot.pid)
        figures.rss.append(anonymous + files)
        figures.anonymous.append(anonymous)
        for _ in range(warm_replies):
            figures.warm.append((await _reply_seconds(fake, members.take()))[0])
        await asyncio.sleep(SETTLE_SECONDS)  # the last warm reply's edits are not counted
        _, calls = await _reply_seconds(fake, members.take(), settle=True)
        figures.calls.append(len(calls))
        figures.call_kinds = ", ".join(calls)
        return True
    finally:
        if ready_line == OTOMO_READY:
            await bot.stop()
        else:
            await bot.kill()  # its shutdown is not measured


@dataclass
class InProcess:
    """Per mention, measured inside Otomo's process: database work before the model call and
    where the reply's time goes."""

    sessions: list[int] = field(default_factory=list)
    statements: list[int] = field(default_factory=list)
    last: list[str] = field(default_factory=list)
    # Seconds from the mention to the model's request, and from there to the reply's post.
    before_model: list[float] = field(default_factory=list)
    after_model: list[float] = field(default_factory=list)
    # Statements between the model's request and the reply's post (the last mention).
    between: list[str] = field(default_factory=list)


async def _in_process(tmp: Path, asks: int) -> InProcess:
    """Otomo in this process, on the tests' harness, so the engine's events can be counted."""
    sessions = statements = 0
    seen: list[str] = []
    at_model: list[tuple[int, int, list[str], float]] = []
    found = InProcess()

    timed: list[tuple[float, str]] = []

    def on_statement(*args: Any) -> None:
        nonlocal statements
        statements += 1
        seen.append(" ".join(str(args[2]).split())[:110])
        timed.append((time.monotonic(), seen[-1]))

    def on_session(*_: Any) -> None:
        nonlocal sessions
        sessions += 1

    def answer(request: ChatRequest) -> Reply:
        at_model.append((sessions, statements, list(seen), time.monotonic()))
        return text(ANSWER)

    async with FakeDiscord(_world(asks + 2)) as fake, ScriptedLLM() as llm:
        llm.rule = answer
        async with running_bot(tmp, fake=fake, llm=llm) as otomo:
            engine = otomo.app.core.database.engine.sync_engine
            event.listen(engine, "before_cursor_execute", on_statement)
            event.listen(Session, "after_begin", on_session)
            try:
                for n in range(asks):
                    await otomo.idle()
                    await asyncio.sleep(0.3)  # let background writes of the last answer end
                    sessions = statements = 0
                    seen.clear()
                    timed.clear()
                    at_model.clear()
                    before = len(fake.requests)
                    sent_at = time.monotonic()
                    await otomo.ask("こんにちは", user_id=FIRST_MEMBER + n)
                    if not at_model:
                        continue
                    found.sessions.append(at_model[0][0])
                    found.statements.append(at_model[0][1])
                    found.last = at_model[0][2]
                    posted = next(
                        r.at
                        for r in fake.requests[before:]
                        if r.method == "POST" and r.path.endswith("/messages")
                    )
                    found.before_model.append(at_model[0][3] - sent_at)
                    found.after_model.append(posted - at_model[0][3])
                    found.between = [
                        f"+{(at - at_model[0][3]) * 1000:4.0f} ms {what}"
                        for at, what in timed
                        if at_model[0][3] <= at <= posted
                    ]
            finally:
                event.remove(engine, "before_cursor_execute", on_statement)
                event.remove(Session, "after_begin", on_session)
    return found


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


async def bench(starts: int, warm_replies: int, asks: int) -> int:
    members = Members()
    otomo = Figures("Otomo")
    minimal = Figures("minimal discord.py bot")
    world = _world(starts * (warm_replies + 2) * 2 + 10)
    with tempfile.TemporaryDirectory(prefix="otomo-reply-") as folder:
        tmp = Path(folder)
        (tmp / "knowledge_base").mkdir()
        (tmp / "minimal_bot.py").write_text(MINIMAL_BOT, encoding="utf-8")
        async with FakeDiscord(world) as fake, ScriptedLLM() as llm:
            llm.rule = lambda request: text(ANSWER)
            base = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG"}}
            base.update(bot_environment(fake, llm, tmp))
            base["DATABASE_URL"] = f"sqlite+aiosqlite:///{tmp / 'otomo.db'}"
            # The first start migrates the new database: not what an operator waits for daily.
            if not await _one_start(
                fake, Figures("migrating"), members, [sys.executable, "-m", "bot", "run"],
                base, Path.cwd(), OTOMO_READY, 0,
            ):  # fmt: skip
                return 1
            for _ in range(starts):
                ok = await _one_start(
                    fake, otomo, members, [sys.executable, "-m", "bot", "run"],
                    base, Path.cwd(), OTOMO_READY, warm_replies,
                )  # fmt: skip
                ok = ok and await _one_start(
                    fake, minimal, members, [sys.executable, str(tmp / "minimal_bot.py")],
                    base, tmp, MINIMAL_READY, warm_replies,
                )  # fmt: skip
                if not ok:
                    return 1
        trips = tmp / "harness"
        trips.mkdir()
        inside = await _in_process(trips, asks)

    warm, first = _median(otomo.warm), _median(otomo.first)
    rows = [
        (f, _median(f.warm), _median(f.first), _median(f.ready), _median(f.ready_cpu))
        for f in (otomo, minimal)
    ]
    print(
        f"Reply speed, {starts} start(s) of each bot, {warm_replies} warm replies per start "
        f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)"
    )
    print(
        f"  {'':24}{'warm reply':>12}{'first reply':>13}{'ready':>9}{'CPU':>9}{'RSS':>9}"
        f"{'calls':>7}"
    )
    for figures, w, f, r, cpu in rows:
        print(
            f"  {figures.name:24}{w * 1000:9.0f} ms{f * 1000:10.0f} ms{r:7.2f} s{cpu:7.2f} s"
            f"{_median(figures.rss):6.0f} MB{_median([float(c) for c in figures.calls]):7.0f}"
        )
    print("  (ready: start to ready; CPU: CPU seconds the process used to get ready)")
    for figures in (otomo, minimal):
        print(f"  {figures.name} REST calls of one plain reply: {figures.call_kinds}")
    calls = _median([float(c) for c in otomo.calls])
    statements_median = _median([float(s) for s in inside.statements])
    sessions_median = _median([float(s) for s in inside.sessions])
    checks: list[tuple[str, bool]] = [
        (
            f"warm reply {warm * 1000:.0f} ms <= {TARGET_WARM_FACTOR} x the minimal bot's "
            f"({TARGET_WARM_FACTOR * _median(minimal.warm) * 1000:.0f} ms)",
            warm <= TARGET_WARM_FACTOR * _median(minimal.warm),
        ),
        (
            f"first reply after ready {first * 1000:.0f} ms <= {TARGET_FIRST_FACTOR} x warm "
            f"({TARGET_FIRST_FACTOR * warm * 1000:.0f} ms)",
            first <= TARGET_FIRST_FACTOR * warm,
        ),
        (
            f"start to ready {_median(otomo.ready):.2f} s <= {TARGET_READY_S:.0f} s",
            _median(otomo.ready) <= TARGET_READY_S,
        ),
        (
            f"RSS after the first reply {_median(otomo.rss):.0f} MB <= {TARGET_RSS_MB:.0f} MB "
            f"(anonymous {_median(otomo.anonymous):.0f} MB; the rest, pages of mapped files, "
            "varies with the page cache)",
            _median(otomo.rss) <= TARGET_RSS_MB,
        ),
        (f"REST calls per plain reply {calls:.0f} <= {TARGET_CALLS}", calls <= TARGET_CALLS),
        (
            f"database sessions before the model call {sessions_median:.0f} ("
            f"{statements_median:.0f} statements, BEGIN included; median of "
            f"{len(inside.sessions)} mentions) <= {TARGET_SESSIONS}",
            bool(inside.sessions) and sessions_median <= TARGET_SESSIONS,
        ),
    ]
    for line, ok in checks:
        print(f"  {line}: {'ok' if ok else 'MISSED'}")
    print(
        f"  inside Otomo (median of {len(inside.before_model)}): mention -> model request "
        f"{_median(inside.before_model) * 1000:.0f} ms, model request -> reply posted "
        f"{_median(inside.after_model) * 1000:.0f} ms"
    )
    print("  statements before the model call (the last mention):")
    for statement in inside.last:
        print(f"    {statement}")
    print("  statements between the model's request and the reply's post (the last mention):")
    for statement in inside.between:
        print(f"    {statement}")
    return 0 if all(ok for _, ok in checks) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--short", action="store_true", help="one start each, a few replies")
    args = parser.parse_args(argv)
    if args.short:
        # The short run checks the bench still works; its figures on a busy machine miss targets.
        asyncio.run(bench(starts=1, warm_replies=5, asks=3))
        return 0
    return asyncio.run(bench(starts=3, warm_replies=15, asks=7))


if __name__ == "__main__":
    raise SystemExit(main())
