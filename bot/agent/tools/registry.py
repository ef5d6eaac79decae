"""The tool registry: the tools the agent may offer, by name, scope and handler."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from bot.agent.tools.tool import Tool


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
