"""Tool registry: typed async functions the model may call, with schemas built by pydantic."""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Generic, TypeVar
from zoneinfo import ZoneInfo

from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.agent.tool_running import ToolError, ToolOutcome, execute, parse_arguments
from bot.agent.tool_schema import clean_schema, docstring_parts, model_from_signature
from bot.clock import Clock
from bot.settings import Settings

__all__ = [
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolOutcome",
    "ToolRegistry",
    "execute",
    "parse_arguments",
    "tool",
]

# What a tool takes its services from: one typed object the composition root builds.
D = TypeVar("D")

TOOL_NAME_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
DEFAULT_TIMEOUT_SECONDS = 30.0
MAX_TIMEOUT_SECONDS = 300.0


@dataclass
class ToolContext(Generic[D]):
    """Everything a tool may use about the current request; tools never read globals.

    `deps` is the bot's one dependencies object; a tool declares the part it needs as a
    Protocol (`ctx: ToolContext[WeatherDeps]`) and reads its services from it.
    """

    user_id: int
    user_name: str
    guild_id: int | None
    channel_id: int
    clock: Clock
    sessions: async_sessionmaker[AsyncSession]
    settings: Settings
    timezone: ZoneInfo
    # Long-lived services (an index, the reminder service…), built by the composition root.
    deps: D
    origin_message_id: int | None = None
    conversation_key: str = ""
    is_admin: bool = False
    # Partial output a long tool reports as it goes; kept if the run is interrupted.
    partial: list[Any] = field(default_factory=list)
    # The model's call id and its arguments as sent (tools in other processes receive both).
    call_id: str = ""
    raw_arguments: str = ""

    def now(self) -> datetime:
        """The current instant in UTC, from the injected clock."""
        return self.clock.now()

    def local_now(self) -> datetime:
        """The current instant in the requester's time zone."""
        return self.clock.now().astimezone(self.timezone)

    def report_partial(self, value: Any) -> None:
        """Record progress that should survive an interruption."""
        self.partial.append(value)


ToolHandler = Callable[..., Awaitable[Any]]


@dataclass(frozen=True)
class Tool:
    """A callable the model may request, with its JSON schema and execution policy."""

    name: str
    description: str
    parameters: dict[str, Any]
    handler: ToolHandler
    timeout: float = DEFAULT_TIMEOUT_SECONDS
    requires_approval: bool = True
    source: str = "core"
    guild_id: int | None = None
    # Handlers that offer the tool without listing it (tools registered from outside).
    handlers: frozenset[str] = frozenset()
    # Validates and converts the model's arguments before the handler sees them.
    arguments_model: type[BaseModel] | None = None
    # Works only inside a server (its notes, say): not offered in DMs or the console.
    servers_only: bool = False

    def __post_init__(self) -> None:
        if not TOOL_NAME_PATTERN.fullmatch(self.name):
            raise ValueError(
                f"tool name {self.name!r} must be 1-64 characters of letters, digits, _ . -"
            )
        if not 0 < self.timeout <= MAX_TIMEOUT_SECONDS:
            raise ValueError(
                f"tool {self.name!r} timeout {self.timeout} must be above 0 and at most "
                f"{MAX_TIMEOUT_SECONDS:g} seconds"
            )
        if self.parameters.get("type") != "object":
            raise ValueError(f"tool {self.name!r} parameters must be a JSON object schema")

    def schema(self) -> dict[str, Any]:
        """The OpenAI-style function schema sent to the model."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }

    def available_in(self, guild_id: int | None) -> bool:
        """Whether the tool is offered in this guild (None = a DM or the console)."""
        if guild_id is None and self.servers_only:
            return False
        return self.guild_id is None or self.guild_id == guild_id


def tool(
    name: str | None = None,
    *,
    description: str | None = None,
    parameters: dict[str, Any] | None = None,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
    requires_approval: bool = True,
    source: str = "core",
    guild_id: int | None = None,
    servers_only: bool = False,
) -> Callable[[ToolHandler], Tool]:
    """Turn `async def f(ctx: ToolContext, ...)` into a Tool; schema from signature + docstring."""

    def wrap(func: ToolHandler) -> Tool:
        if not inspect.iscoroutinefunction(func):
            raise TypeError(f"tool {func.__name__!r} must be an async function")
        tool_name = name or func.__name__
        summary, _ = docstring_parts(func)
        model = (
            None if parameters is not None else model_from_signature(tool_name, func, ToolContext)
        )
        schema = (
            parameters
            if parameters is not None
            else clean_schema(model.model_json_schema() if model else {})
        )
        return Tool(
            name=tool_name,
            description=description or summary or tool_name,
            parameters=schema,
            handler=func,
            timeout=timeout,
            requires_approval=requires_approval,
            source=source,
            guild_id=guild_id,
            arguments_model=model,
            servers_only=servers_only,
        )

    return wrap


class ToolRegistry:
    """The tools the agent may offer; registering a name again replaces the old tool."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for item in tools:
            self.register(item)

    def register(self, item: Tool) -> None:
        """Add or overwrite a tool by name."""
        self._tools[item.name] = item

    def unregister(self, name: str) -> bool:
        """Remove a tool; True when it existed."""
        return self._tools.pop(name, None) is not None

    def clear(self, source: str) -> list[str]:
        """Remove every tool registered with source; return their names."""
        names = [n for n, t in self._tools.items() if t.source == source]
        for n in names:
            del self._tools[n]
        return names

    def get(self, name: str) -> Tool | None:
        """The tool called name, if registered."""
        return self._tools.get(name)

    def names(self) -> list[str]:
        """Every registered name, sorted."""
        return sorted(self._tools)

    def select(
        self, names: Iterable[str] | None, guild_id: int | None, handler: str | None = None
    ) -> list[Tool]:
        """Registered tools among names (all when None), plus those whose scope names handler,
        that are offered in guild_id."""
        wanted = list(self._tools.keys() if names is None else names)
        if handler is not None:
            scoped = [n for n, t in self._tools.items() if handler in t.handlers]
            wanted += [n for n in scoped if n not in wanted]
        chosen = [self._tools[n] for n in wanted if n in self._tools]
        return [t for t in chosen if t.available_in(guild_id)]

    def offers(
        self, name: str, names: Iterable[str], guild_id: int | None, handler: str
    ) -> Tool | None:
        """The tool called name if this handler offers it in guild_id (checked where it runs)."""
        found = self._tools.get(name)
        if found is None or not found.available_in(guild_id):
            return None
        return found if name in names or handler in found.handlers else None

    def with_overrides(self, name: str, **changes: Any) -> None:
        """Replace some fields of a registered tool (e.g. its timeout from settings)."""
        self._tools[name] = replace(self._tools[name], **changes)
