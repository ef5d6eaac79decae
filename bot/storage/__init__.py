"""Persistence: SQLAlchemy 2 async models, engine and sessions, Alembic migrations."""

from bot.storage.engine import Base, Database, UTCDateTime, create_database

__all__ = ["Base", "Database", "UTCDateTime", "create_database"]
