"""The whole schema: the shared tables and the tables each feature declares (the feature list
imports their modules, which define them on the shared metadata); Alembic and the tests read it
from here."""

from bot.app.features import TABLES
from bot.storage.tables import metadata

__all__ = ["TABLES", "metadata"]
