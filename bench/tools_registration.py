"""Registrations under load: bursts of concurrent `POST /api/tools/register` against the tools
API, on a SQLite file and on PostgreSQL; how many answers were 5xx, and how long they took.

Each burst is --clients requests at once: new names, then the same names again (overwrites),
then a name every client fights over. With --apis 2 (the default) two APIs, each with its own
engine and connection pool as two bot processes have, share the database and the requests.

Run `python bench/tools_registration.py` (SQLite, then the shared PostgreSQL on 127.0.0.1:5432
if it answers) or `--database URL|sqlite` (`--short`: 5 clients, one round). Target: 0
answers of 500 or more.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import aiohttp  # noqa: E402
from reminder_crashes import SHARED_POSTGRES, _postgres_answers, bench_database  # noqa: E402

from bot.agent.tools import ToolRegistry  # noqa: E402
from bot.extools.api import ToolsAPI  # noqa: E402
from bot.extools.catalog import ExternalTools  # noqa: E402
from bot.runtime.clock import SystemClock  # noqa: E402
from bot.storage import Database, create_database  # noqa: E402

TOKEN = "bench-token-0123456789abcdef"
HANDLERS = frozenset({"general"})


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _body(name: str, n: int) -> dict[str, Any]:
    return {
        "name": name,
        "description": f"Benchmark tool {n}.",
        "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}},
        "callback_url": "http://127.0.0.1:9/invoke",
        "source": f"bench{n % 5}",
    }


async def _burst(
    http: aiohttp.ClientSession, bases: list[str], bodies: list[dict[str, Any]]
) -> list[tuple[int, float]]:
    async def one(n: int, body: dict[str, Any]) -> tuple[int, float]:
        start = time.perf_counter()
        async with http.post(
            f"{bases[n % len(bases)]}/api/tools/register",
            json=body,
            headers={"Authorization": f"Bearer {TOKEN}"},
        ) as response:
            await response.read()
            return response.status, (time.perf_counter() - start) * 1000

    return await asyncio.gather(*(one(n, body) for n, body in enumerate(bodies)))


async def run_on(url: str, kind: str, clients: int, apis: int, rounds: int) -> None:
    databases: list[Database] = []
    servers: list[ToolsAPI] = []
    bases: list[str] = []
    for _ in range(apis):
        database = create_database(url)
        catalog = ExternalTools(
            database.sessions,
            SystemClock(),
            ToolRegistry(),
            handler_names=HANDLERS,
            trusted_sources=frozenset(),
            check_every=3600,
        )
        port = _free_port()
        api = ToolsAPI(catalog, TOKEN, "127.0.0.1", port)
        await api.start()
        databases.append(database)
        servers.append(api)
        bases.append(f"http://127.0.0.1:{port}")
    statuses: Counter[int] = Counter()
    took: list[float] = []
    walls: dict[str, list[float]] = {"new names": [], "overwrites": [], "one name": []}
    connector = aiohttp.TCPConnector(limit=0)
    try:
        async with aiohttp.ClientSession(connector=connector) as http:
            for r in range(rounds):
                kinds = {
                    "new names": [_body(f"tool_{r}_{n}", n) for n in range(clients)],
                    "overwrites": [_body(f"tool_{r}_{n}", n) for n in range(clients)],
                    "one name": [_body(f"contested_{r}", n) for n in range(clients)],
                }
                for what, bodies in kinds.items():
                    start = time.perf_counter()
                    answers = await _burst(http, bases, bodies)
                    walls[what].append((time.perf_counter() - start) * 1000)
                    statuses.update(status for status, _ in answers)
                    took.extend(ms for _, ms in answers)
    finally:
        for api in servers:
            await api.stop()
            await api.tools.stop()
        for database in databases:
            await database.dispose()
    ordered = sorted(took)
    failed = sum(count for status, count in statuses.items() if status >= 500)
    shown = ", ".join(f"{status}: {count}" for status, count in sorted(statuses.items()))
    print(f"{kind}: {rounds * 3} bursts of {clients} registrations at once over {apis} API(s)")
    print(f"  answers  {shown}   (5xx: {failed} of {len(took)})")
    print(
        f"  per request  median {statistics.median(took):7.1f} ms   "
        f"p90 {ordered[int(len(ordered) * 0.9) - 1]:7.1f} ms   max {ordered[-1]:7.1f} ms"
    )
    for what, times in walls.items():
        print(
            f"  a burst of {what:<10}  median {statistics.median(times):7.1f} ms   "
            f"max {max(times):7.1f} ms"
        )


async def run(urls: list[str], clients: int, apis: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory(prefix="tools-bench-db-") as folder:
        for url in urls:
            async with bench_database(url, folder) as (created, kind):
                await run_on(created, kind, clients, apis, rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50, help="requests at once (default 50)")
    parser.add_argument("--apis", type=int, default=2, help="bot processes' APIs (default 2)")
    parser.add_argument("--rounds", type=int, default=5, help="default 5 (3 bursts each)")
    parser.add_argument("--database", metavar="URL", help="`sqlite` or a PostgreSQL server URL")
    parser.add_argument(
        "--short", action="store_true", help="the same paths in seconds: 5 clients, 1 round"
    )
    args = parser.parse_args()
    if args.short:
        args.clients, args.rounds = min(args.clients, 5), 1
    if args.database:
        urls = [args.database]
    else:
        urls = ["sqlite"]
        if asyncio.run(_postgres_answers(SHARED_POSTGRES)):
            urls.append(SHARED_POSTGRES)
    asyncio.run(run(urls, args.clients, args.apis, args.rounds))


if __name__ == "__main__":
    main()
