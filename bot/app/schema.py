"""The whole schema: the shared tables and the tables features keep in their own packages
(Alembic and the tests read it from here)."""

from bot.channels import table as channels
from bot.storage.tables import metadata
from bot.tasks import table as tasks

__all__ = ["channels", "metadata", "tasks"]
