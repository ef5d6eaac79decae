"""Reminder crash benchmark: reminders due at once, the bot killed with SIGKILL again and again
while it posts them, restarted each time; how many were posted, duplicated, lost, and how soon
each restarted bot posted after its gateway connected.

The bot runs as `make run` runs it (`python -m bot run`, one process at a time) against the fake
Discord, which enforces Discord's limits and remembers nonces for 5 minutes as Discord does. A
few bot processes start ahead and wait, warm, at the fake's gateway; each connects only once the
one before it was killed, as a restarted process would, so the run is not all start-up time.
Every --held-every-th kill falls right after Discord stored a message and before the bot heard
back (the fake holds its answer); the others at a random instant after the restarted bot's
first post.

Run `python bench/reminder_crashes.py` (SQLite file and, when it answers, the shared PostgreSQL),
or `--database URL` for one PostgreSQL server only, `--database sqlite` for SQLite only
(`--short`: 10 reminders and one kill on SQLite, the same paths in seconds).
Target: 0 duplicates, 0 lost, and a first post within 1 s of each reconnection.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy.engine import make_url

from bot.reminders.table import ReminderState
from bot.storage import create_database
from bot.storage.migrate import upgrade
from tests.e2e.harness import bot_environment
from tests.e2e.processes import (
    BotProcess,
    admit_next,
    extra_channels,
    process_environment,
    reminder_messages,
    reminder_posts_since,
    seed_due_reminders,
    settled_rows,
    world_with_channels,
)
from tests.fakes.discord.gateway import GatewayGate
from tests.fakes.discord_server import FakeDiscord
from tests.fakes.llm_server import ScriptedLLM

PROJECT = Path(__file__).resolve().parents[1]
SHARED_POSTGRES = "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
CHANNEL_LIMIT = (5, 5.0)  # messages per seconds, per channel
GLOBAL_LIMIT = (50, 1.0)  # requests per seconds, per bot
WARM = 2  # processes waiting at the gateway besides the connected one
# Niceness added to the warm processes: they get the CPU the connected one leaves.
WARM_NICENESS = 5
# A warm process may need long to start on a busy machine (it yields to everything else).
WARM_LIMIT = 900.0
# A run that connected may take this long to post (start-up tasks, a busy machine).
STEP_LIMIT = 120.0
# How long after a restarted bot's first post it is killed, at most: short enough that 50 kills
# fall inside a 500-reminder burst (about 50 posts a second at Discord's global limit).
KILL_WINDOW_SECONDS = 0.1


@contextlib.asynccontextmanager
async def bench_database(url: str, folder: str) -> AsyncIterator[tuple[str, str]]:
    """A new migrated database: a SQLite file in folder, or a database of its own on url's
    PostgreSQL server (dropped afterwards). Yields (url, what to print)."""
    if url == "sqlite":
        created = f"sqlite+aiosqlite:///{folder}/crashes.db"
        kind = "SQLite file"
        drop = None
    else:
        import asyncpg

        name = f"otomo_crash_bench_{os.getpid()}"
        server = make_url(url)
        admin = server.set(drivername="postgresql").render_as_string(hide_password=False)
        connection = await asyncpg.connect(admin)
        await connection.execute(f'CREATE DATABASE "{name}"')
        created = server.set(database=name).render_as_string(hide_password=False)
        kind = "PostgreSQL"

        async def drop_it() -> None:
            await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            await connection.close()

        drop = drop_it
    database = create_database(created)
    try:
        await upgrade(database)
    finally:
        await database.dispose()
    try:
        yield created, kind
    finally:
        if drop is not None:
            await drop()


async def warm(environ: dict[str, str], folder: Path) -> BotProcess:
    """A bot process that starts behind the connected one: it must not slow its work down,
    as no process warms up beside a real restart."""
    process = await BotProcess(environ, folder).start()
    own = os.getpriority(os.PRIO_PROCESS, 0)
    os.setpriority(os.PRIO_PROCESS, process.pid, min(19, own + WARM_NICENESS))
    return process


async def admit(gate: GatewayGate, waiting: list[BotProcess]) -> BotProcess:
    """The next warm process, connected (waiting as long as a busy machine needs)."""
    await asyncio.wait_for(gate.someone_waiting(), WARM_LIMIT)
    # Whichever is admitted must connect at full speed; the others go back behind it.
    for process in waiting:
        in_front(process)
    admitted = await admit_next(gate, waiting)
    own = os.getpriority(os.PRIO_PROCESS, 0)
    for process in waiting:
        with contextlib.suppress(ProcessLookupError):
            os.setpriority(os.PRIO_PROCESS, process.pid, min(19, own + WARM_NICENESS))
    return admitted


def in_front(process: BotProcess) -> None:
    """The connected process gets this benchmark's own priority back (root only)."""
    with contextlib.suppress(PermissionError, ProcessLookupError):
        os.setpriority(os.PRIO_PROCESS, process.pid, os.getpriority(os.PRIO_PROCESS, 0))


async def run_on(url: str, kind: str, reminders: int, channels: int, kills: int, held: int) -> None:
    """Seed, then kill and restart the bot `kills` times while it posts; print the figures."""
    chance = random.Random()
    channel_ids = extra_channels(channels)
    ids = await seed_due_reminders(url, [channel_ids[n % channels] for n in range(reminders)])
    with tempfile.TemporaryDirectory(prefix="crash-bench-") as folder:
        async with FakeDiscord(world_with_channels(channels)) as fake, ScriptedLLM() as llm:
            fake.rate_limit_channel_messages(*CHANNEL_LIMIT)
            fake.rate_limit_global(*GLOBAL_LIMIT)
            settings = bot_environment(fake, llm, Path(folder), DATABASE_URL=url)
            # The bot under test is the one beside this file, whatever is installed.
            environ = process_environment({**settings, "PYTHONPATH": str(PROJECT)})
            gate = fake.hold_gateway()
            waiting = [await warm(environ, Path(folder)) for _ in range(1 + WARM)]
            await fake.wait_until(lambda: gate.waiting == len(waiting), WARM_LIMIT)

            def posted() -> int:
                return len(reminder_messages(fake, channel_ids))

            first_post_delays: list[float] = []
            done_kills = held_kills = 0
            started = time.perf_counter()
            while done_kills < kills and posted() < reminders:
                connections = len(fake.ready_at)
                hold = fake.hold_after_accepting() if (done_kills + 1) % held == 0 else None
                bot = await admit(gate, waiting)
                in_front(bot)
                waiting.append(await warm(environ, Path(folder)))
                await fake.wait_until(lambda c=connections: len(fake.ready_at) > c, STEP_LIMIT)
                connected_at = fake.ready_at[connections]
                await fake.wait_until(
                    lambda at=connected_at: reminder_posts_since(fake, at) or posted() >= reminders,
                    STEP_LIMIT,
                )
                posts = reminder_posts_since(fake, connected_at)
                if posts:
                    first_post_delays.append(min(posts) - connected_at)
                if hold is not None:
                    with contextlib.suppress(TimeoutError):
                        await hold.wait_accepted(STEP_LIMIT)
                        held_kills += 1
                else:
                    await asyncio.sleep(chance.uniform(0, KILL_WINDOW_SECONDS))
                await bot.kill()
                if hold is not None:
                    hold.release()
                    fake.holds.clear()
                done_kills += 1
            last = await admit(gate, waiting)
            in_front(last)
            await fake.wait_until(lambda: posted() >= reminders, STEP_LIMIT * 5)
            rows = await settled_rows(url, reminders, STEP_LIMIT)
            took = time.perf_counter() - started
            await last.stop()
            for process in waiting:
                await process.kill()
            by_nonce = reminder_messages(fake, channel_ids)
    wanted = {f"r{reminder_id}o1" for reminder_id in ids}
    duplicates = sum(len(messages) - 1 for messages in by_nonce.values())
    unmarked = sum(row.state != ReminderState.DELIVERED for row in rows)
    lost = len(wanted - set(by_nonce))
    print(f"{kind}: {reminders} reminders due at once over {channels} channels")
    print(
        f"  SIGKILLs: {done_kills} ({held_kills} right after Discord accepted a message, "
        f"the others at a random instant within {KILL_WINDOW_SECONDS:g} s of the first post)"
    )
    print(
        f"  posted: {len(set(by_nonce) & wanted)}"
        f"   duplicates: {duplicates}   lost: {lost}   rows not marked delivered: {unmarked}"
    )
    if first_post_delays:
        print(
            f"  first post after the gateway connected: median "
            f"{statistics.median(first_post_delays) * 1000:.0f} ms, max "
            f"{max(first_post_delays) * 1000:.0f} ms over {len(first_post_delays)} restarts"
        )
    print(f"  total time: {took:.1f} s ({fake.rate_limit_hits.total()} 429s served)")


async def run(urls: list[str], reminders: int, channels: int, kills: int, held: int) -> None:
    with tempfile.TemporaryDirectory(prefix="crash-bench-db-") as folder:
        for url in urls:
            async with bench_database(url, folder) as (created, kind):
                await run_on(created, kind, reminders, channels, kills, held)


async def _postgres_answers(url: str) -> bool:
    import asyncpg

    try:
        connection = await asyncpg.connect(
            make_url(url).set(drivername="postgresql").render_as_string(False), timeout=5
        )
    except Exception:
        return False
    await connection.close()
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reminders", type=int, default=500, help="default 500")
    parser.add_argument("--channels", type=int, default=50, help="default 50")
    parser.add_argument("--kills", type=int, default=50, help="SIGKILLs (default 50)")
    parser.add_argument(
        "--held-every", type=int, default=5, help="every Nth kill right after an accepted post"
    )
    parser.add_argument(
        "--database",
        metavar="URL",
        help="`sqlite`, or a PostgreSQL server (a database of its own is created there); "
        "default: SQLite, then the shared PostgreSQL on 127.0.0.1:5432 if it answers",
    )
    parser.add_argument(
        "--short",
        action="store_true",
        help="the same paths in seconds: 10 reminders, one kill right after an accepted post, "
        "SQLite only",
    )
    args = parser.parse_args()
    if args.short:
        global WARM
        WARM = 1  # each process start is seconds of imports: start as few as the run needs
        args.reminders, args.channels = min(args.reminders, 10), min(args.channels, 5)
        args.kills, args.held_every = 1, 1
        args.database = args.database or "sqlite"
    if min(args.reminders, args.channels, args.kills, args.held_every) < 1:
        parser.error("every count must be at least 1")
    if args.database:
        urls = [args.database]
    else:
        urls = ["sqlite"]
        if asyncio.run(_postgres_answers(SHARED_POSTGRES)):
            urls.append(SHARED_POSTGRES)
    asyncio.run(run(urls, args.reminders, args.channels, args.kills, args.held_every))


if __name__ == "__main__":
    main()
