"""Imports every shared table module; bot/app/schema.py adds the features' own tables."""

from bot.storage import (
    agent,
    claims,
    command_syncs,
    external_tools,
    leases,
    model_choice,
    servers,
    threads,
    users,
)
from bot.storage.engine import Base

metadata = Base.metadata

__all__ = [
    "Base",
    "agent",
    "claims",
    "command_syncs",
    "external_tools",
    "leases",
    "metadata",
    "model_choice",
    "servers",
    "threads",
    "users",
]
