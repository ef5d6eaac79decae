"""The whole schema: the shared tables and the tables features keep in their own packages
(Alembic and the tests read it from here)."""

from bot.storage.models import metadata
from bot.tasks import table as tasks

__all__ = ["metadata", "tasks"]
