"""The knowledge feature's Discord part: /kb for the knowledge-base editors, and the gauges of
the knowledge base's size."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from bot.discord_ui.builder import DiscordBuilder
from bot.knowledge import KnowledgeEditor, KnowledgeIndex
from bot.knowledge.discord_part.commands import KnowledgeCommands
from bot.runtime.metrics import Metrics


class KnowledgeDiscordDeps(Protocol):
    """What /kb needs of the bot's dependencies."""

    @property
    def kb_editor(self) -> KnowledgeEditor:
        """Edits the knowledge files, with their history."""
        ...

    @property
    def knowledge(self) -> KnowledgeIndex:
        """The index of the knowledge base."""
        ...


def size_gauges(metrics: Metrics, index: KnowledgeIndex) -> Callable[[], Awaitable[None]]:
    """Set the gauges of the index's files and sections, and of its latest (re)load."""

    async def refresh() -> None:
        last = index.last_load
        metrics.knowledge_size(
            len(index.paths()), index.section_count(), last.seconds if last else None
        )

    return refresh


def register(app: DiscordBuilder, deps: KnowledgeDiscordDeps) -> None:
    """/kb for knowledge-base admins, and the gauges of the knowledge base's size."""
    app.add_commands(
        lambda client: KnowledgeCommands(deps.kb_editor, app.preferences, app.permissions)
    )
    if app.metrics is not None:
        app.add_gauges(size_gauges(app.metrics, deps.knowledge))
