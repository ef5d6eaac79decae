"""Server settings benchmark: 1,000 servers with settings of their own.

Run `python bench/server_settings.py` (SQLite file in a temporary folder). Prints the cost of
resolving a mention's settings (the server's config, whether Otomo answers in the channel,
approver roles, a tool switch: what the gate, permissions and registry ask), the refresh every
process runs (nothing changed, then one server changed) and the memory per server.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from datetime import UTC, datetime
from datetime import time as clock_time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.members.permissions import Actor, Permissions
from bot.runtime.clock import ManualClock
from bot.servers.config import defaults_of
from bot.servers.directory import ServerDirectory
from bot.settings import Settings
from bot.storage.engine import create_database
from bot.storage.models import metadata

FIRST_GUILD = 10**17
MENTIONS = 100_000


def overrides(rng: random.Random, guild: int) -> dict[str, object]:
    """What a typical server changes: channels, language, persona, roles, posts, budgets."""
    channels = frozenset(guild * 100 + n for n in range(rng.randint(1, 5)))
    return {
        "answer_mode": rng.choice(["allow", "deny"]),
        "answer_channels": channels,
        "language": rng.choice(["ja", "en"]),
        "persona": "語尾に「〜だよ」をつけて、明るく短く話す。" * rng.randint(1, 4),
        "approver_roles": frozenset({guild + 1, guild + 2}),
        "disabled_tools": frozenset({"web_search"}) if rng.random() < 0.3 else frozenset(),
        "weather_enabled": True,
        "weather_channel": guild * 100,
        "weather_time": clock_time(rng.randint(5, 9), 0),
        "member_daily_tokens": rng.choice([0, 20_000, 50_000]),
    }


async def main(servers_count: int) -> None:
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as folder:
        database = create_database(f"sqlite+aiosqlite:///{Path(folder) / 'bench.db'}")
        async with database.engine.begin() as connection:
            await connection.run_sync(metadata.create_all)
        clock = ManualClock(datetime(2026, 12, 1, tzinfo=UTC))
        settings = Settings()
        writer = ServerDirectory(database.sessions, clock, defaults_of(settings))
        guilds = [FIRST_GUILD + n for n in range(servers_count)]
        started = time.perf_counter()
        for guild in guilds:
            await writer.change(guild, overrides(rng, guild), by=1)
        print(
            f"wrote the settings of {servers_count:,} servers in "
            f"{time.perf_counter() - started:.1f} s"
        )

        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        reader = ServerDirectory(database.sessions, clock, defaults_of(settings))
        started = time.perf_counter()
        await reader.refresh()
        load = time.perf_counter() - started
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        print(f"a process loads them all at start: {load * 1000:.0f} ms")
        print(f"memory: {held / 1024:.0f} KiB in all, {held / servers_count:,.0f} bytes per server")

        started = time.perf_counter()
        await reader.refresh()
        idle = time.perf_counter() - started
        await writer.change(guilds[0], {"language": "en"}, by=1)
        started = time.perf_counter()
        changed = await reader.refresh()
        one = time.perf_counter() - started
        print(
            "refresh (every SERVER_SETTINGS_REFRESH_SECONDS): nothing changed "
            f"{idle * 1000:.1f} ms, {changed} server changed {one * 1000:.1f} ms"
        )

        rules = Permissions.per_server(reader, settings)
        picks = [rng.choice(guilds) for _ in range(MENTIONS)]
        samples: list[float] = []
        for guild in picks:
            actor = Actor(1, guild, frozenset({guild + 2}))
            t0 = time.perf_counter_ns()
            config = reader.config(guild)
            config.answers_in(guild * 100 + 3, guild * 100)
            rules.is_approver(actor)
            config.tool_enabled("web_search")
            samples.append((time.perf_counter_ns() - t0) / 1000)
        samples.sort()
        p50 = statistics.median(samples)
        p99 = samples[int(0.99 * len(samples)) - 1]
        print(
            f"resolving a mention's settings ({MENTIONS:,} mentions over {servers_count:,} "
            f"servers): p50 {p50:.2f} µs, p99 {p99:.2f} µs (target: well under 1 ms)"
        )
        await database.dispose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=1000, help="how many servers")
    asyncio.run(main(parser.parse_args().servers))
