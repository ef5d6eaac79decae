"""The one dependencies object: the services every feature built, in the features' order."""

from __future__ import annotations

from bot.agent.llm.client import LLMClient
from bot.app.features import FEATURES
from bot.handlers.services import Deps, Shared
from bot.runtime.clock import Clock
from bot.servers.config import defaults_of
from bot.servers.directory import ServerDirectory
from bot.settings import Settings
from bot.storage import Database

__all__ = ["Deps", "build_deps"]


def build_deps(
    settings: Settings,
    clock: Clock,
    database: Database,
    llm: LLMClient,
    servers: ServerDirectory | None = None,
) -> Deps:
    """Let every feature build its services (servers: the environment's settings for every
    server when not given)."""
    servers = servers or ServerDirectory(database.sessions, clock, defaults_of(settings))
    shared = Shared(settings, clock, database, llm, servers)
    deps = Deps(servers)
    for feature in FEATURES:
        if feature.services is not None:
            deps.add(feature.services(shared))
    return deps
