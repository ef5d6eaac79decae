"""The plugin SDK: tools that run in their own process and register with Otomo over HTTP."""

from bot.plugins.sdk import Plugin, PluginError
from bot.plugins.tools import PluginTool, ToolFailure, llm_tool

__all__ = ["Plugin", "PluginError", "PluginTool", "ToolFailure", "llm_tool"]
