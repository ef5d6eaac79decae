"""Tools that live in other processes: the registration API, plugin callbacks, MCP servers."""

from bot.extools.catalog import ExternalTools, ToolStatus
from bot.extools.runtime import ExternalToolsRuntime, build_external_tools

__all__ = ["ExternalTools", "ExternalToolsRuntime", "ToolStatus", "build_external_tools"]
