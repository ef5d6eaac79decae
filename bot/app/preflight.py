"""Checks of the files and ports a start needs, made before the gateway connects.

Each raises StartupFailure with the sentence an operator acts on; `doctor` runs the same ones.
"""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Iterable
from pathlib import Path

from bot.app.start_failures import ExitCode, StartupFailure, check_database_url, database_failure
from bot.extools.mcp_config import MCPConfigError, MCPServerConfig, load_mcp_servers
from bot.settings import Settings


def check_knowledge_base(settings: Settings) -> Path:
    """The knowledge-base folder, which must exist (a typo would leave the bot knowing nothing)."""
    folder = settings.knowledge_base_dir
    shown = f"KNOWLEDGE_BASE_DIR {str(folder)!r}"
    if folder.is_file():
        raise StartupFailure(
            ExitCode.KNOWLEDGE_BASE,
            f"{shown} is a file, not a folder: point it at the folder of markdown files",
        )
    if not folder.is_dir():
        raise StartupFailure(
            ExitCode.KNOWLEDGE_BASE,
            f"{shown} does not exist{'' if folder.is_absolute() else f' in {Path.cwd()}'}: "
            "create the folder or fix the path in .env",
        )
    return folder


def check_mcp_servers(settings: Settings, handler_names: Iterable[str]) -> list[MCPServerConfig]:
    """The MCP servers file, readable and well-formed, each stdio command installed."""
    if settings.mcp_servers_file is None:
        return []
    try:
        servers = load_mcp_servers(settings.mcp_servers_file, frozenset(handler_names))
    except MCPConfigError as exc:
        raise StartupFailure(ExitCode.MCP_FILE, str(exc)) from None
    for server in servers:
        if server.command is not None and not _runnable(server.command, server.cwd):
            raise StartupFailure(
                ExitCode.MCP_FILE,
                f"MCP server {server.name!r} in MCP_SERVERS_FILE "
                f"{str(settings.mcp_servers_file)!r} runs {server.command!r}, which is not "
                'installed or not on PATH: install it, give its full path, or set "disabled": true',
            )
    return servers


def _runnable(command: str, cwd: str | None) -> bool:
    if os.sep in command:
        path = Path(cwd or ".") / command if not Path(command).is_absolute() else Path(command)
        return path.is_file() and os.access(path, os.X_OK)
    return shutil.which(command) is not None


def check_port_free(host: str, port: int, setting: str, code: ExitCode) -> None:
    """StartupFailure when another process already listens on host:port."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        # The same option aiohttp sets: a port in TIME_WAIT after a restart is free.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise StartupFailure(
                code,
                f"{setting} {port} on {host} is taken by another process "
                f"({exc.strerror or exc}): choose a free port, or stop the other process "
                "(is another Otomo still running?)",
            ) from None


def check_ports(settings: Settings) -> None:
    """The tools API's and the health server's ports, when configured, are free."""
    if settings.tools_api_port is not None:
        check_port_free(
            settings.tools_api_host,
            settings.tools_api_port,
            "TOOLS_API_PORT",
            ExitCode.TOOLS_API_PORT,
        )
    if settings.health_port is not None:
        check_port_free(
            settings.health_host, settings.health_port, "HEALTH_PORT", ExitCode.HEALTH_PORT
        )


async def check_database(settings: Settings) -> None:
    """The database's driver is supported and a connection opens (SQLite: its file can be)."""
    from bot.storage import create_database

    check_database_url(settings.database_url)
    try:
        database = create_database(settings.database_url)
        try:
            async with database.engine.connect():
                pass
        finally:
            await database.dispose()
    except Exception as exc:
        failure = database_failure(exc, settings.database_url)
        if failure is None:
            raise
        raise failure from exc


async def preflight(settings: Settings) -> None:
    """Every check that needs no Discord and no model, cheapest first."""
    from bot.app.features import HANDLERS
    from bot.handlers.catalog import HandlerParts, build_handlers

    check_knowledge_base(settings)
    check_mcp_servers(settings, build_handlers(HandlerParts(list(HANDLERS))))
    check_ports(settings)
    await check_database(settings)
