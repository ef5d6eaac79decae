"""Tools that live in other processes: the registration API, plugin callbacks, MCP servers."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.extools.catalog import ExternalTools, ToolStatus
    from bot.extools.runtime import ExternalToolsRuntime, build_external_tools

__all__ = ["ExternalTools", "ExternalToolsRuntime", "ToolStatus", "build_external_tools"]

# Loaded at first use, so `python -m bot db …` and `tools token …` do not load the agent.
_HOMES = {
    "ExternalTools": "bot.extools.catalog",
    "ToolStatus": "bot.extools.catalog",
    "ExternalToolsRuntime": "bot.extools.runtime",
    "build_external_tools": "bot.extools.runtime",
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'bot.extools' has no attribute {name!r}")
    return getattr(importlib.import_module(_HOMES[name]), name)
