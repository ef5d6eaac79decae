"""An MCP server over stdio, written with the SDK's server API, for the MCP tests.

`python tests/fakes/mcp_dice_server.py PIDFILE` writes its process id to PIDFILE (so a test can
kill it and watch the bot reconnect) and serves `roll` and `fail` over stdio;
`... --http PORT` serves them over streamable HTTP at http://127.0.0.1:PORT/mcp instead.
With `--attacks` it also serves what a careless or hostile server offers: `big` (an answer of
any size) and two tools whose names differ only by a character outside the name rule.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("dice")


@server.tool()
def roll(sides: int, times: int = 1) -> dict[str, object]:
    """Roll a die with the given number of sides; deterministic for tests (always the top)."""
    return {"rolls": [sides] * times, "total": sides * times, "pid": os.getpid()}


@server.tool()
async def wait(seconds: float) -> str:
    """Take a while (to show a timeout)."""
    await anyio.sleep(seconds)
    return "done"


@server.tool(name="fail/now")
def fail() -> str:
    """Always fails, to show how a tool error reaches the model."""
    raise ToolError("the dice fell off the table")


def add_attacks() -> None:
    """Tools that test the bot's caps and name rules."""

    @server.tool()
    def big(chars: int) -> str:
        """Answer with chars characters."""
        return "x" * chars

    @server.tool(name="spell.check")
    def spell_check_dotted(text: str) -> str:
        """Check spelling (the dotted one)."""
        return "dotted"

    @server.tool(name="spell_check")
    def spell_check_plain(text: str) -> str:
        """Check spelling (the plain one)."""
        return "plain"


if __name__ == "__main__":
    arguments = sys.argv[1:]
    if "--attacks" in arguments:
        arguments.remove("--attacks")
        add_attacks()
    if len(arguments) == 2 and arguments[0] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(arguments[1]))
    else:
        if arguments:
            Path(arguments[0]).write_text(str(os.getpid()))
        server.run("stdio")
