"""The whole schema: the shared tables and the tables features keep in their own packages
(Alembic and the tests read it from here)."""

from bot.channels import table as channels
from bot.chat import table as chat
from bot.knowledge import table as knowledge
from bot.notes import table as notes
from bot.reminders import table as reminders
from bot.storage.tables import metadata
from bot.tasks import table as tasks

__all__ = ["channels", "chat", "knowledge", "metadata", "notes", "reminders", "tasks"]
