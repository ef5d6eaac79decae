"""The knowledge feature's Discord part: /kb for the knowledge-base editors."""

from __future__ import annotations

from typing import Protocol

from bot.discord_ui.builder import DiscordBuilder
from bot.knowledge import KnowledgeEditor
from bot.knowledge.discord_part.commands import KnowledgeCommands


class KnowledgeDiscordDeps(Protocol):
    """What /kb needs of the bot's dependencies."""

    @property
    def kb_editor(self) -> KnowledgeEditor:
        """Edits the knowledge files, with their history."""
        ...


def register(app: DiscordBuilder, deps: KnowledgeDiscordDeps) -> None:
    """/kb for knowledge-base admins."""
    app.add_commands(
        lambda client: KnowledgeCommands(deps.kb_editor, app.preferences, app.permissions)
    )
