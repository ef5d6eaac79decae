"""Persistence: SQLAlchemy 2 async models, engine and sessions, Alembic migrations."""

from bot.storage.base import Base, UTCDateTime
from bot.storage.engine import Database, create_database

__all__ = ["Base", "Database", "UTCDateTime", "create_database"]
