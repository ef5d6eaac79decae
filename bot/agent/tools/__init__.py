"""Tools the model may call: what a tool is and how a call runs, the registry, schemas."""

from bot.agent.tools.registry import (
    DEFAULT_TIMEOUT_SECONDS,
    MAX_TIMEOUT_SECONDS,
    TOOL_NAME_PATTERN,
    Tool,
    ToolCheck,
    ToolContext,
    ToolHandler,
    ToolRegistry,
)
from bot.agent.tools.tool import (
    ToolError,
    ToolOutcome,
    execute,
    parse_arguments,
    tool,
)

__all__ = [
    "DEFAULT_TIMEOUT_SECONDS",
    "MAX_TIMEOUT_SECONDS",
    "TOOL_NAME_PATTERN",
    "Tool",
    "ToolCheck",
    "ToolContext",
    "ToolError",
    "ToolHandler",
    "ToolOutcome",
    "ToolRegistry",
    "execute",
    "parse_arguments",
    "tool",
]
