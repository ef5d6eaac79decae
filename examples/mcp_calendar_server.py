"""A small MCP server for Otomo: days until an event, and the weekday of a date (with 祝日).

Otomo starts it itself when `MCP_SERVERS_FILE=examples/mcp_servers.json` is in `.env` (see
docs/tools.md); it speaks MCP over stdio. Written with the `mcp` SDK that Otomo pins (2.x), whose
server API is `mcp.server.mcpserver.MCPServer` (1.x's `mcp.server.fastmcp.FastMCP` is gone).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import jpholiday
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

WEEKDAYS_JA = "月火水木金土日"

server = MCPServer("calendar")


def _today(timezone: str) -> date:
    try:
        return datetime.now(ZoneInfo(timezone)).date()
    except (ZoneInfoNotFoundError, ValueError):
        raise ToolError(
            f"{timezone!r} is not a time zone: use an IANA name such as Asia/Tokyo"
        ) from None


def _parse(day: str) -> date:
    try:
        return date.fromisoformat(day.strip())
    except ValueError:
        raise ToolError(f"{day!r} is not a date: use YYYY-MM-DD, e.g. 2026-12-24") from None


@server.tool()
def days_until(
    day: Annotated[str, Field(description="The event's date, YYYY-MM-DD")],
    timezone: Annotated[str, Field(description="IANA time zone for today")] = "Asia/Tokyo",
) -> dict[str, object]:
    """How many days from today until a date (negative when it has passed)."""
    target = _parse(day)
    return {"date": target.isoformat(), "days": (target - _today(timezone)).days}


@server.tool()
def weekday_of(
    day: Annotated[str, Field(description="The date, YYYY-MM-DD")],
) -> dict[str, object]:
    """The weekday of a date, and the name of the Japanese public holiday on it, if any."""
    target = _parse(day)
    return {
        "date": target.isoformat(),
        "weekday": target.strftime("%A"),
        "weekday_ja": WEEKDAYS_JA[target.weekday()] + "曜日",
        "holiday": jpholiday.is_holiday_name(target),
    }


if __name__ == "__main__":
    server.run("stdio")
