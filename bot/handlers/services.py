"""The long-lived services: each feature builds its own from the shared parts, by name."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bot.agent.llm.client import LLMClient
from bot.runtime.clock import Clock
from bot.servers.directory import ServerDirectory
from bot.settings import Settings
from bot.storage import Database

__all__ = ["BuildServices", "Deps", "Shared"]


@dataclass(frozen=True)
class Shared:
    """What every feature may build its services from."""

    settings: Settings
    clock: Clock
    database: Database
    llm: LLMClient
    # Each server's settings (persona, language, posts), the same object every layer reads.
    servers: ServerDirectory


# A feature's services, by the name its tools and Discord part read them under.
BuildServices = Callable[[Shared], Mapping[str, object]]


class Deps:
    """The services every feature built: passed to every tool call as `ctx.deps`, and to each
    feature's registration (each feature names the part it needs in a Protocol of its own)."""

    def __init__(self, servers: ServerDirectory) -> None:
        self.servers = servers
        self._services: dict[str, object] = {}

    def __getattr__(self, name: str) -> Any:
        # Only called for names not set on the object: the features' services.
        services = self.__dict__.get("_services", {})
        if name in services:
            return services[name]
        raise AttributeError(name)

    def add(self, services: Mapping[str, object]) -> None:
        """Add one feature's services (a name used twice is a mistake in the features' list)."""
        taken = set(services) & (set(self._services) | {"servers"})
        if taken:
            raise ValueError(f"service name already used: {sorted(taken)}")
        self._services.update(services)
        # Also plain attributes, so a tool's `ctx.deps.x` is a dictionary look-up, not a call to
        # __getattr__ (names of Deps' own members are still reached through it only).
        for name, service in services.items():
            if not hasattr(type(self), name):
                self.__dict__[name] = service
