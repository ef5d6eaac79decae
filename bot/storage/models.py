"""Imports every model module so `Base.metadata` describes the whole schema (Alembic reads it)."""

from bot.storage import (
    agent,
    chat,
    claims,
    command_syncs,
    external_tools,
    knowledge,
    leases,
    models_choice,
    notes,
    reminders,
    servers,
    threads,
    users,
)
from bot.storage.engine import Base

metadata = Base.metadata

__all__ = [
    "Base",
    "agent",
    "chat",
    "claims",
    "command_syncs",
    "external_tools",
    "knowledge",
    "leases",
    "metadata",
    "models_choice",
    "notes",
    "reminders",
    "servers",
    "threads",
    "users",
]
