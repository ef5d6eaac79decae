"""What a feature adds to the bot: its handler, tools offered per handler, prompt sections,
start and stop."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from bot.agent.runs import Handler
from bot.agent.tools import Tool, ToolRegistry
from bot.handlers.catalog import HandlerParts, Section, build_handlers
from bot.handlers.spec import HandlerSpec
from bot.settings import Settings

__all__ = ["AppBuilder", "FeatureLifecycle", "Section"]

Start = Callable[[], object]
Close = Callable[[], Awaitable[None]]


class FeatureLifecycle:
    """The background work features started (word pool flush, hot reload) and how to end it."""

    def __init__(self, starts: Sequence[Start], closes: Sequence[Close]) -> None:
        self._starts = list(starts)
        self._closes = list(closes)

    def start(self) -> None:
        """Start every feature's background work."""
        for start in self._starts:
            start()

    async def close(self) -> None:
        """Flush and close, in the reverse order of registration."""
        for close in reversed(self._closes):
            await close()


class AppBuilder:
    """Collects what each feature registers; the composition root turns it into the agent's
    handlers and the bot's start and stop."""

    def __init__(self, settings: Settings, registry: ToolRegistry) -> None:
        self.settings = settings
        self.registry = registry
        self._parts = HandlerParts()
        self._starts: list[Start] = []
        self._closes: list[Close] = []
        self._server_tables: list[type[Any]] = []

    def add_handler(self, handler: HandlerSpec) -> None:
        """A feature's handler (its prompt's opening text), which tools and sections name."""
        self._parts.add_handler(handler)

    def add_tools(self, tools: Sequence[Tool], *, offered_in: Sequence[str]) -> None:
        """Register tools and offer them in these handlers."""
        for item in tools:
            self.registry.register(item)
        for handler in offered_in:
            self._parts.add_tools(handler, [t.name for t in tools])

    def add_section(self, section: Section, *, handlers: Sequence[str]) -> None:
        """Add a stable section to these handlers' system prompts (see HandlerParts)."""
        for handler in handlers:
            self._parts.add_section(handler, section)

    def add_context(self, section: Section, *, handlers: Sequence[str]) -> None:
        """Add a context section, which depends on the message, to these handlers' prompts."""
        for handler in handlers:
            self._parts.add_context(handler, section)

    def on_start(self, start: Start) -> None:
        """Run start when the bot (or the console) starts serving."""
        self._starts.append(start)

    def on_close(self, close: Close) -> None:
        """Await close when the bot stops."""
        self._closes.append(close)

    def forget_with_server(self, *tables: type[Any]) -> None:
        """Delete these tables' rows (by guild_id) when a departed server is forgotten."""
        self._server_tables.extend(tables)

    def server_tables(self) -> tuple[type[Any], ...]:
        """The features' tables holding a server's rows, in the order they registered."""
        return tuple(self._server_tables)

    def handlers(self) -> dict[str, Handler]:
        """The handlers with every registered tool and section."""
        return build_handlers(self._parts)

    def lifecycle(self) -> FeatureLifecycle:
        """What features start and close with the bot."""
        return FeatureLifecycle(self._starts, self._closes)
