"""What a tool in another process costs: the latency a plugin call (and an MCP call) adds.

Run `python bench/plugin_latency.py [--calls 100]`. The bot's side is real (the tools API, the
catalog on SQLite, `execute()` of the registered tool); the plugin is `examples/dice_plugin.py`
running as its own process, and the MCP server is the stdio test server. The baseline is the
same dice function called in this process.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "examples"))

from dice_plugin import plugin as dice  # noqa: E402

from bot.agent.tools import ToolContext, ToolRegistry, execute  # noqa: E402
from bot.extools.api import ToolsAPI  # noqa: E402
from bot.extools.catalog import ExternalTools  # noqa: E402
from bot.extools.mcp import MCPServers  # noqa: E402
from bot.extools.mcp_config import MCPServerConfig  # noqa: E402
from bot.runtime.clock import SystemClock  # noqa: E402
from bot.settings import load_settings  # noqa: E402
from bot.storage import create_database  # noqa: E402
from bot.storage.migrate import upgrade  # noqa: E402

TOKEN = "bench-token-0123456789abcdef"
HANDLERS = frozenset({"general"})
ARGUMENTS = {"notation": "3d6+1", "seed": "bench"}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _registered(registry: ToolRegistry, name: str) -> None:
    while True:
        if registry.get(name) is not None:
            return
        await asyncio.sleep(0.05)


async def _timed(calls: int, once: Callable[[], Awaitable[Any]]) -> list[float]:
    await once()  # warm the connection pool and the plugin
    took: list[float] = []
    for _ in range(calls):
        start = time.perf_counter()
        await once()
        took.append((time.perf_counter() - start) * 1000)
    return took


def _line(label: str, took: list[float]) -> str:
    ordered = sorted(took)
    p90 = ordered[int(len(ordered) * 0.9) - 1]
    return (
        f"  {label:<34} median {statistics.median(took):6.2f} ms   p90 {p90:6.2f} ms   "
        f"max {ordered[-1]:6.2f} ms"
    )


async def main(calls: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="otomo-bench-"))
    settings = load_settings({"DATABASE_URL": f"sqlite+aiosqlite:///{folder / 'b.db'}"}, None)
    database = create_database(settings.database_url)
    await upgrade(database)
    registry = ToolRegistry()
    catalog = ExternalTools(
        database.sessions,
        SystemClock(),
        registry,
        handler_names=HANDLERS,
        trusted_sources=frozenset(),
        check_every=3600,
    )
    port = _free_port()
    api = ToolsAPI(catalog, TOKEN, "127.0.0.1", port)
    await api.start()
    env = dict(os.environ, OTOMO_TOOLS_URL=f"http://127.0.0.1:{port}", OTOMO_TOOLS_TOKEN=TOKEN)
    plugin = await asyncio.create_subprocess_exec(
        sys.executable,
        str(ROOT / "examples" / "dice_plugin.py"),
        env=env,
        cwd=folder,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    server = str(ROOT / "tests" / "fakes" / "mcp_dice_server.py")
    mcp = MCPServers(
        [MCPServerConfig("dice", command=sys.executable, args=(server,))],
        registry,
        handler_names=HANDLERS,
        trusted_sources=frozenset(),
        timeout=30,
    )
    mcp.start()
    ctx = ToolContext(
        user_id=1,
        user_name="bench",
        guild_id=None,
        channel_id=1,
        clock=SystemClock(),
        sessions=database.sessions,
        settings=settings,
        timezone=settings.timezone,
        deps=None,
    )
    try:
        async with asyncio.timeout(60):
            await _registered(registry, "roll_dice")
            await mcp.connected.wait()
        through_plugin = registry.get("roll_dice")
        through_mcp = registry.get("mcp.dice.roll")
        assert through_plugin is not None and through_mcp is not None
        local = dice.tools["roll_dice"]

        direct = await _timed(calls, lambda: local.invoke(dict(ARGUMENTS)))
        remote = await _timed(calls, lambda: execute(through_plugin, ctx, ARGUMENTS))
        over_mcp = await _timed(calls, lambda: execute(through_mcp, ctx, {"sides": 6}))
        outcome = await execute(through_plugin, ctx, ARGUMENTS)
        assert not outcome.is_error, outcome.output
    finally:
        plugin.terminate()
        await plugin.wait()
        await mcp.stop()
        await api.stop()
        await catalog.stop()
        await database.dispose()

    print(f"tool calls, {calls} each (loopback HTTP, plugin in its own process):")
    print(_line("in-process function (baseline)", direct))
    print(_line("plugin over the callback protocol", remote))
    print(_line("MCP server over stdio", over_mcp))
    added = statistics.median(remote) - statistics.median(direct)
    print(f"  a plugin call adds {added:.2f} ms (median) to the tool's own time")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100)
    asyncio.run(main(parser.parse_args().calls))
