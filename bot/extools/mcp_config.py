"""The MCP servers file: the common `{"mcpServers": {name: {command|url, ...}}}` shape."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.agent.tools import TOOL_NAME_PATTERN

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_NAME_LIMIT = 64
_HASH_CHARS = 6


class MCPConfigError(Exception):
    """The servers file cannot be used; the message says what to fix."""


@dataclass(frozen=True)
class MCPServerConfig:
    """One server: a command to run over stdio, or a streamable-HTTP URL."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] | None = None
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    # Handlers that offer its tools (None: every handler).
    handlers: tuple[str, ...] | None = None

    @property
    def transport(self) -> str:
        """ "stdio" or "http", for logs and `/tools list`."""
        return "http" if self.url else "stdio"


def exposed_name(server: str, tool: str) -> str:
    """`mcp.<server>.<tool>` within the tool-name rule; long names end in a short hash."""
    name = f"mcp.{_UNSAFE.sub('_', server)}.{_UNSAFE.sub('_', tool)}"
    if len(name) > _NAME_LIMIT:
        digest = hashlib.sha256(f"{server}/{tool}".encode()).hexdigest()[:_HASH_CHARS]
        name = f"{name[: _NAME_LIMIT - _HASH_CHARS - 1]}-{digest}"
    assert TOOL_NAME_PATTERN.fullmatch(name)
    return name


def load_mcp_servers(path: Path, handler_names: frozenset[str]) -> list[MCPServerConfig]:
    """The enabled servers of the file at path; MCPConfigError with a sentence otherwise."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise MCPConfigError(
            f"MCP_SERVERS_FILE {str(path)!r} cannot be read ({exc.strerror or exc}): fix the path"
        ) from None
    except json.JSONDecodeError as exc:
        raise MCPConfigError(
            f"MCP_SERVERS_FILE {str(path)!r} is not valid JSON ({exc.msg} at line {exc.lineno})"
        ) from None
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        raise MCPConfigError(
            f'MCP_SERVERS_FILE {str(path)!r} must hold {{"mcpServers": {{"name": {{...}}}}}}'
        )
    found: list[MCPServerConfig] = []
    for name, entry in servers.items():
        if not isinstance(entry, dict):
            raise MCPConfigError(f"MCP server {name!r} must be a JSON object")
        if entry.get("disabled") is True:
            continue
        found.append(_server(str(name), entry, handler_names))
    return found


def _strings(value: Any, what: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise MCPConfigError(f"{what} must be an object of strings")
    return {str(k): str(v) for k, v in value.items()}


def _server(name: str, entry: dict[str, Any], handler_names: frozenset[str]) -> MCPServerConfig:
    if not name or not _UNSAFE.sub("", name):
        raise MCPConfigError(f"MCP server name {name!r} needs letters or digits")
    command, url = entry.get("command"), entry.get("url")
    if bool(command) == bool(url):
        raise MCPConfigError(
            f"MCP server {name!r} needs either a command (stdio) or a url (streamable HTTP)"
        )
    if url is not None and (
        not isinstance(url, str) or not url.startswith(("http://", "https://"))
    ):
        raise MCPConfigError(f"MCP server {name!r}: url must start with http:// or https://")
    args = entry.get("args", [])
    if not isinstance(args, list):
        raise MCPConfigError(f"MCP server {name!r}: args must be a list of strings")
    handlers = entry.get("handlers")
    if handlers is not None:
        if not isinstance(handlers, list) or not set(handlers) <= handler_names:
            raise MCPConfigError(
                f"MCP server {name!r}: handlers must be a list of {sorted(handler_names)}"
            )
        handlers = tuple(handlers)
    env = _strings(entry.get("env"), f"MCP server {name!r}: env")
    return MCPServerConfig(
        name=name,
        command=str(command) if command else None,
        args=tuple(str(a) for a in args),
        env=env or None,
        cwd=str(entry["cwd"]) if entry.get("cwd") else None,
        url=url,
        headers=_strings(entry.get("headers"), f"MCP server {name!r}: headers"),
        handlers=handlers,
    )
