"""Imports every table module so `Base.metadata` describes the whole schema (Alembic reads it)."""

from bot.storage import (
    agent,
    chat,
    claims,
    command_syncs,
    external_tools,
    knowledge,
    leases,
    model_choice,
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
    "model_choice",
    "notes",
    "reminders",
    "servers",
    "threads",
    "users",
]
