"""An MCP server over stdio, written with the SDK's server API, for the MCP tests.

`python tests/fakes/mcp_dice_server.py PIDFILE` writes its process id to PIDFILE (so a test can
kill it and watch the bot reconnect) and serves `roll` and `fail` over stdio;
`... --http PORT` serves them over streamable HTTP at http://127.0.0.1:PORT/mcp instead.
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


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        if len(sys.argv) > 1:
            Path(sys.argv[1]).write_text(str(os.getpid()))
        server.run("stdio")
