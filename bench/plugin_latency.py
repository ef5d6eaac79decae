"""What a tool in another process costs: the latency a plugin call (and an MCP call) adds, and
what the bot's checks of plugins (issue 21) add to it.

Run `python bench/plugin_latency.py [--calls 100]` (`--short`: 5 calls). The bot's side is real (the
tools API, the catalog on SQLite, `execute()` of the registered tool); the plugin is
`examples/dice_plugin.py` running as its own process, and the MCP server is the stdio test server.
The baseline is the same dice function called in this process. "No checks" is the same callback
called the way the bot did before the checks: no schema check of the arguments, the whole answer
read, nothing cut; it runs interleaved with the checked call, so both see the same machine.
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

from bot.agent.tools import Tool, ToolContext, ToolRegistry, execute  # noqa: E402
from bot.extools.answers import DEFAULT_MAX_RESULT_CHARS, clip_output  # noqa: E402
from bot.extools.api import ToolsAPI  # noqa: E402
from bot.extools.callbacks import CallbackClient  # noqa: E402
from bot.extools.catalog import ExternalTools  # noqa: E402
from bot.extools.mcp import MCPServers  # noqa: E402
from bot.extools.mcp_config import MCPServerConfig  # noqa: E402
from bot.extools.schemas import arguments_check  # noqa: E402
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


async def _interleaved(
    calls: int, first: Callable[[], Awaitable[Any]], second: Callable[[], Awaitable[Any]]
) -> tuple[list[float], list[float]]:
    await first()
    await second()
    a: list[float] = []
    b: list[float] = []
    for n in range(calls):
        # ABBA: neither goes first more often (a warm connection, a fresh cache).
        pair = ((first, a), (second, b)) if n % 2 == 0 else ((second, b), (first, a))
        for once, took in pair:
            start = time.perf_counter()
            await once()
            took.append((time.perf_counter() - start) * 1000)
    return a, b


def _unchecked(checked: Tool, url: str, client: CallbackClient) -> Tool:
    """The same callback, called as before the checks: any answer read whole, nothing cut."""

    async def call(ctx: ToolContext[object], /, **arguments: Any) -> Any:
        return await client.call(
            url, checked.name, arguments, ctx.call_id, ctx.raw_arguments, checked.timeout
        )

    return Tool(
        name=checked.name,
        description=checked.description,
        parameters=checked.parameters,
        handler=call,
        timeout=checked.timeout,
    )


def _line(label: str, took: list[float]) -> str:
    ordered = sorted(took)
    p90 = ordered[int(len(ordered) * 0.9) - 1]
    return (
        f"  {label:<38} median {statistics.median(took):6.2f} ms   p90 {p90:6.2f} ms   "
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
    bare_client = CallbackClient(max_answer_bytes=sys.maxsize)
    try:
        async with asyncio.timeout(60):
            await _registered(registry, "roll_dice")
            await mcp.connected.wait()
        through_plugin = registry.get("roll_dice")
        through_mcp = registry.get("mcp.dice.roll")
        assert through_plugin is not None and through_mcp is not None
        local = dice.tools["roll_dice"]
        row = await catalog.store.get("roll_dice")
        assert row is not None
        bare = _unchecked(through_plugin, row.callback_url, bare_client)
        check = arguments_check("roll_dice", row.parameters)
        answer = (await execute(through_plugin, ctx, ARGUMENTS)).output

        async def checks_alone() -> None:
            check(ARGUMENTS)
            clip_output(answer, DEFAULT_MAX_RESULT_CHARS)

        direct = await _timed(calls, lambda: local.invoke(dict(ARGUMENTS)))
        unchecked, remote = await _interleaved(
            calls,
            lambda: execute(bare, ctx, ARGUMENTS),
            lambda: execute(through_plugin, ctx, ARGUMENTS),
        )
        alone = await _timed(calls, checks_alone)
        over_mcp = await _timed(calls, lambda: execute(through_mcp, ctx, {"sides": 6}))
        outcome = await execute(through_plugin, ctx, ARGUMENTS)
        assert not outcome.is_error, outcome.output
    finally:
        await bare_client.close()
        plugin.terminate()
        await plugin.wait()
        await mcp.stop()
        await api.stop()
        await catalog.stop()
        await database.dispose()

    print(f"tool calls, {calls} each (loopback HTTP, plugin in its own process):")
    print(_line("in-process function (baseline)", direct))
    print(_line("plugin, no checks (as before)", unchecked))
    print(_line("plugin, checked (as the bot calls it)", remote))
    print(_line("MCP server over stdio", over_mcp))
    print(_line("the checks alone (schema, cut)", alone))
    added = statistics.median(remote) - statistics.median(direct)
    checks = statistics.median(remote) - statistics.median(unchecked)
    print(f"  a plugin call adds {added:.2f} ms (median) to the tool's own time")
    print(
        f"  the checks add {checks:+.3f} ms (median of the interleaved calls), "
        f"{statistics.median(alone) * 1000:.0f} µs measured alone"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--short", action="store_true", help="the same paths with 5 calls")
    args = parser.parse_args()
    asyncio.run(main(min(args.calls, 5) if args.short else args.calls))
