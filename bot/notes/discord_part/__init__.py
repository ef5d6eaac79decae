"""The notes feature's Discord part: /notes for the server notebook."""

from __future__ import annotations

from bot.discord_ui.builder import DiscordBuilder
from bot.notes.discord_part.commands import NotesCommands
from bot.notes.tools import NotesDeps


def register(app: DiscordBuilder, deps: NotesDeps) -> None:
    """/notes for the server notebook."""
    app.add_commands(lambda client: NotesCommands(deps.notebook, app.preferences, app.permissions))
