"""The tool registry: the tools the agent may offer, by name, scope and handler, and the names
they reach the model under.

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
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from bot.agent.tools.tool import Tool

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
