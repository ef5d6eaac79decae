"""The tool registry: what a tool is (a typed async function with its JSON schema and policy,
and the context its calls get), the tools the agent may offer, by name, scope and handler, and
the names they reach the model under.

Names as every model provider accepts them: `^[a-zA-Z0-9_-]{1,64}$`. Registered names may hold
dots (`mcp.files.read_file`, a plugin's `dice.roll`), which OpenAI and Anthropic refuse in a
function name. Only what is sent to the model is mapped: a dot becomes `__`, and a name that
grows past 64 characters is cut and ends in a hash of the registered name. The mapping depends
on the name alone, so every process and every restart sends the same name; the registry refuses
a tool whose mapped name another tool already has, so over the tools a request offers it is
one-to-one and the model's calls map back. Members, cards, the history and the tools API keep
the registered names.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Generic, TypeVar
from zoneinfo import ZoneInfo

from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.agent.conversation.fences import Untrusted
from bot.agent.tools.presentation import Look
from bot.runtime.clock import Clock
from bot.settings import Settings

TOOL_NAME_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
DEFAULT_TIMEOUT_SECONDS = 30.0
MAX_TIMEOUT_SECONDS = 300.0

# What a tool takes its services from: one typed object the composition root builds.
D = TypeVar("D")


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
    # The member's roles in the server and whether they manage it.
    role_ids: tuple[int, ...] = ()
    manages_server: bool = False
    # The language the member wrote in (what a tool stores for later posts, e.g. a reminder).
    language: str = "ja"
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
# A tool's own check of a call before anyone is asked to approve it: what is wrong, as a
# sentence for the model, or None when the call can run (a time in the past, another member's
# reminder).
ToolCheck = Callable[[dict[str, Any], "ToolContext[Any]"], Awaitable[str | None]]


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
    # A tool from outside: what is wrong with the model's arguments by its JSON schema, as a
    # sentence (None when they fit), checked before any card asks a member.
    check_arguments: Callable[[dict[str, Any]], str | None] | None = None
    # A tool from outside: who provides it (a hash of its source, address and definition).
    # An approval or an "always allow" holds for that provider only; None for the bot's own.
    provider: str | None = None
    # How a call looks to members (title, labels, a sentence for the result); None shows the
    # name and the arguments as sent.
    look: Look | None = None
    # No side effect and no cost (listing, reading): no approval-style card, a status line.
    read_only: bool = False
    # The tool's own checks of a call, run before a card asks anyone (see ToolCheck).
    check: ToolCheck | None = None
    # Its answers carry words from outside (a web page, a plugin, a member's note): they reach
    # the model fenced, and later calls of the turn ask first. A function of the output says
    # so per answer (None: this answer carries none).
    untrusted: Untrusted | Callable[[Any], Untrusted | None] | None = None

    def untrusted_in(self, output: Any) -> Untrusted | None:
        """Where this answer's untrusted words come from, if it has any."""
        if callable(self.untrusted):
            return self.untrusted(output)
        return self.untrusted

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


PROVIDER_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_OUTSIDE = re.compile(r"[^a-zA-Z0-9_-]")
_LIMIT = 64
_HASH_CHARS = 8


def wire_name(name: str) -> str:
    """The name the model sees for the registered name."""
    if PROVIDER_NAME.fullmatch(name):
        return name
    mapped = _OUTSIDE.sub("_", name.replace(".", "__")) or "_"
    if len(mapped) > _LIMIT:
        digest = hashlib.sha256(name.encode()).hexdigest()[:_HASH_CHARS]
        mapped = f"{mapped[: _LIMIT - _HASH_CHARS - 1]}-{digest}"
    return mapped


class WireNames:
    """The names of one model request: registered names out, the model's names back."""

    def __init__(self, offered: Iterable[str]) -> None:
        self._back = {wire_name(name): name for name in offered}

    def registered(self, sent: str) -> str:
        """The registered name the model meant by sent (sent itself when nothing maps to it)."""
        return self._back.get(sent, sent)

    @staticmethod
    def tools(schemas: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """OpenAI-style tool schemas with their function names mapped."""
        return [
            {
                **schema,
                "function": {**schema["function"], "name": wire_name(schema["function"]["name"])},
            }
            if "function" in schema
            else schema
            for schema in schemas
        ]

    @staticmethod
    def messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Chat messages with the names in assistant tool calls mapped (the history keeps the
        registered names; a provider checks those too)."""
        mapped: list[dict[str, Any]] = []
        for message in messages:
            calls = message.get("tool_calls")
            if message.get("role") == "assistant" and calls:
                message = {
                    **message,
                    "tool_calls": [
                        {
                            **c,
                            "function": {**c["function"], "name": wire_name(c["function"]["name"])},
                        }
                        for c in calls
                    ],
                }
            mapped.append(message)
        return mapped


log = logging.getLogger(__name__)

# Whether a tool (by name) is switched on in a server (None: a DM or the console).
SwitchedOn = Callable[[str, int | None], bool]

# OpenAI refuses a request offering more tools than this.
MAX_TOOLS_PER_REQUEST = 128


class ToolNameTaken(ValueError):
    """Another tool is already sent to the model under the name this one would be sent as."""


class ToolRegistry:
    """The tools the agent may offer; registering a name again replaces the old tool."""

    def __init__(self, tools: Iterable[Tool] = (), enabled: SwitchedOn | None = None) -> None:
        self._tools: dict[str, Tool] = {}
        # Whether a server switched a tool off for itself (None: every tool is on everywhere).
        self._enabled = enabled
        self._sent_as: dict[str, str] = {}  # name sent to the model → registered name
        self._left_out: frozenset[str] = frozenset()
        for item in tools:
            self.register(item)

    def register(self, item: Tool) -> None:
        """Add or overwrite a tool by name; ToolNameTaken when another tool is already sent
        to the model under the name this one would be sent as."""
        other = self.taken_by(item.name)
        if other is not None:
            raise ToolNameTaken(
                f"{item.name!r} would be sent to the model as {wire_name(item.name)!r}, which "
                f"is already the name of {other!r}"
            )
        self._tools[item.name] = item
        self._sent_as[wire_name(item.name)] = item.name

    def taken_by(self, name: str) -> str | None:
        """The other registered tool sent to the model under the name name would be sent as."""
        other = self._sent_as.get(wire_name(name))
        return other if other is not None and other != name else None

    def unregister(self, name: str) -> bool:
        """Remove a tool; True when it existed."""
        if self._tools.pop(name, None) is None:
            return False
        del self._sent_as[wire_name(name)]
        return True

    def clear(self, source: str) -> list[str]:
        """Remove every tool registered with source; return their names."""
        names = [n for n, t in self._tools.items() if t.source == source]
        for n in names:
            self.unregister(n)
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
        return self._within_cap([t for t in chosen if self._here(t, guild_id)])

    def _here(self, found: Tool, guild_id: int | None) -> bool:
        """Offered in guild_id: in its scope, and not switched off by that server."""
        return found.available_in(guild_id) and (
            self._enabled is None or self._enabled(found.name, guild_id)
        )

    def _within_cap(self, tools: list[Tool]) -> list[Tool]:
        """At most MAX_TOOLS_PER_REQUEST: the bot's own tools first, then tools from outside by
        name; the rest are left out of the request (logged once per change)."""
        if len(tools) <= MAX_TOOLS_PER_REQUEST:
            return tools
        own = [t for t in tools if t.provider is None]
        outside = sorted((t for t in tools if t.provider is not None), key=lambda t: t.name)
        kept = (own + outside)[:MAX_TOOLS_PER_REQUEST]
        left_out = frozenset(t.name for t in tools) - {t.name for t in kept}
        if left_out != self._left_out:
            self._left_out = left_out
            log.warning(
                "%d tools are offered here; a model request takes at most %d, so %d tools from "
                "outside are left out (the last by name: %s). Disable or unregister some.",
                len(tools),
                MAX_TOOLS_PER_REQUEST,
                len(left_out),
                ", ".join(sorted(left_out)[:5]),
            )
        return kept

    def offers(
        self, name: str, names: Iterable[str], guild_id: int | None, handler: str
    ) -> Tool | None:
        """The tool called name if this handler offers it in guild_id (checked where it runs)."""
        found = self._tools.get(name)
        if found is None or not self._here(found, guild_id):
            return None
        return found if name in names or handler in found.handlers else None

    def with_overrides(self, name: str, **changes: Any) -> None:
        """Replace some fields of a registered tool (e.g. its timeout from settings)."""
        self._tools[name] = replace(self._tools[name], **changes)
