"""Everything about tools from outside, built from settings and started with the bot."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.agent.tools import ToolRegistry
from bot.extools.catalog import ExternalTools, ProviderGrants, ToolStatus
from bot.extools.credentials import Credentials
from bot.extools.mcp_config import MCPConfigError, load_mcp_servers
from bot.runtime.clock import Clock
from bot.settings import Settings
from bot.storage.outage import DatabaseHealth

if TYPE_CHECKING:
    from bot.extools.api import ToolsAPI
    from bot.extools.mcp import MCPServers

log = logging.getLogger(__name__)


@dataclass
class ExternalToolsRuntime:
    """Registered plugins, MCP servers and the tools API of this process."""

    catalog: ExternalTools
    mcp: MCPServers | None
    api: ToolsAPI | None

    async def start(self) -> None:
        """Restore registrations, connect MCP servers in the background, open the API."""
        await self.catalog.restore()
        self.catalog.start()
        if self.mcp is not None:
            self.mcp.start()
        if self.api is not None:
            await self.api.start()

    async def stop(self) -> None:
        """Close the API first, so no registration arrives while the rest stops."""
        if self.api is not None:
            await self.api.stop()
        if self.mcp is not None:
            await self.mcp.stop()
        await self.catalog.stop()

    async def statuses(self) -> list[ToolStatus]:
        """Every external tool, plugins first, then MCP servers' tools."""
        found = await self.catalog.statuses()
        return found + (self.mcp.statuses() if self.mcp is not None else [])


def build_external_tools(
    settings: Settings,
    clock: Clock,
    sessions: async_sessionmaker[AsyncSession],
    registry: ToolRegistry,
    handlers: Iterable[str],
    health: DatabaseHealth | None = None,
    grants: ProviderGrants | None = None,
) -> ExternalToolsRuntime:
    """The catalog always (registrations in the database); MCP and the API when configured."""
    handler_names = frozenset(handlers)
    trusted = frozenset(settings.trusted_tool_sources)
    catalog = ExternalTools(
        sessions,
        clock,
        registry,
        handler_names=handler_names,
        trusted_sources=trusted,
        check_every=settings.tools_health_check_seconds,
        health=health,
        max_answer_bytes=settings.tools_max_answer_bytes,
        max_result_chars=settings.tools_max_result_chars,
        grants=grants,
    )
    mcp: MCPServers | None = None
    if settings.mcp_servers_file is not None:
        try:
            servers = load_mcp_servers(settings.mcp_servers_file, handler_names)
        except MCPConfigError as exc:
            log.error("%s. Otomo runs without MCP servers.", exc)
        else:
            # The MCP SDK (~18 MB) is loaded only by bots that configure servers, at start-up.
            from bot.extools.mcp import MCPServers

            mcp = MCPServers(
                servers,
                registry,
                handler_names=handler_names,
                trusted_sources=trusted,
                timeout=settings.mcp_timeout_seconds,
                max_answer_bytes=settings.tools_max_answer_bytes,
                max_result_chars=settings.tools_max_result_chars,
                grants=grants,
            )
    api: ToolsAPI | None = None
    if settings.tools_api_port is not None and settings.tools_api_token is not None:
        # aiohttp's server half (~2 MB) is loaded only by bots that open the tools API.
        from bot.extools.api import ToolsAPI

        api = ToolsAPI(
            catalog,
            settings.tools_api_token.get_secret_value().strip(),
            settings.tools_api_host,
            settings.tools_api_port,
            Credentials(sessions, clock),
        )
    return ExternalToolsRuntime(catalog, mcp, api)
