"""/notes: members list, search and read the server notebook; authors and admins delete.

Answers are ephemeral and ping nobody: notes are members' text and may hold @everyone.
"""

from __future__ import annotations

import logging
from datetime import tzinfo
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord_ui.commands.choices import CHOICES, suggestions
from bot.discord_ui.commands.confirmation import DeleteConfirmation
from bot.discord_ui.commands.private_replies import say
from bot.discord_ui.members import actor_of_interaction
from bot.i18n import Language, answers, language_of_locale, replies
from bot.members.permissions import Permissions
from bot.members.preferences import UserPreferences
from bot.notes import Notebook, NoteError, NoteView
from bot.text.clip import clip

log = logging.getLogger(__name__)

SNIPPET_CHARS = 80


def when(note: NoteView, tz: tzinfo) -> str:
    """When a note was written, in the reader's zone."""
    return note.created_at.astimezone(tz).strftime("%Y-%m-%d %H:%M")


def note_line(note: NoteView, tz: tzinfo, snippet: str | None = None) -> str:
    """One line of a listing: number, title, author, time and the start of the text."""
    text = " ".join((snippet if snippet is not None else note.body).split())
    return f"**{note.label}** — {note.author_name}, {when(note, tz)}\n　{clip(text, SNIPPET_CHARS)}"


def note_card(note: NoteView, tz: tzinfo, language: Language = "ja") -> str:
    """A whole note with who wrote it and when (and who edited it last)."""
    header = f"📝 **{note.label}** — {note.author_name}, {when(note, tz)}"
    if note.updated_by_name is not None:
        edited = note.updated_at.astimezone(tz).strftime("%Y-%m-%d %H:%M")
        header += replies.NOTE_EDITED(language, name=note.updated_by_name, at=edited)
    return f"{header}\n{note.body}"


def _need_server(interaction: discord.Interaction[Any]) -> str:
    return replies.NOTES_NEED_SERVER(language_of_locale(interaction.locale))


class NotesCommands(commands.Cog):
    """/notes list, show and delete."""

    notes = app_commands.Group(name="notes", description="The server notebook", guild_only=True)

    def __init__(
        self, notebook: Notebook, preferences: UserPreferences, permissions: Permissions
    ) -> None:
        self.permissions = permissions
        self.notebook = notebook
        self.preferences = preferences

    def _moderator(self, interaction: discord.Interaction[Any]) -> bool:
        """Moderators may delete anyone's note."""
        return self.permissions.is_moderator(actor_of_interaction(interaction))

    async def cog_app_command_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        """Notebook refusals are sentences; anything else is logged and told in one."""
        original = getattr(error, "original", error)
        if isinstance(original, NoteError):
            await say(interaction, f"⚠️ {original}")
            return
        log.error("/notes command failed", exc_info=original)
        await say(interaction, answers.INTERNAL_ERROR(language_of_locale(interaction.locale)))

    @notes.command(name="list", description="List or search the notes")
    @app_commands.describe(search="Words to look for (e.g. travel)", page="Page number")
    async def list_notes(
        self,
        interaction: discord.Interaction[Any],
        search: str | None = None,
        page: app_commands.Range[int, 1, 1000] = 1,
    ) -> None:
        """List the server's notes, newest first, or the ones matching some words."""
        if interaction.guild_id is None:
            await say(
                interaction, replies.NOTES_NEED_SERVER(language_of_locale(interaction.locale))
            )
            return
        tz = await self.preferences.timezone(interaction.user.id)
        language = language_of_locale(interaction.locale)
        if search and search.strip():
            hits = await self.notebook.search(interaction.guild_id, search.strip(), 10)
            if not hits:
                await say(interaction, replies.NO_NOTE_MATCHES(language, search=clip(search, 50)))
                return
            lines = [note_line(h.note, tz, h.snippet) for h in hits]
            header = replies.NOTES_FOUND(language, search=clip(search, 50))
        else:
            listing = await self.notebook.page(interaction.guild_id, page)
            if not listing.total:
                await say(interaction, replies.NO_NOTES_YET(language))
                return
            lines = [note_line(n, tz) for n in listing.notes]
            header = replies.NOTEBOOK_PAGE(
                language, total=listing.total, page=listing.page, pages=listing.pages
            )
            if listing.page < listing.pages:
                command = f"/notes list page:{listing.page + 1}"
                lines.append(replies.NEXT_PAGE(language, command=command))
        lines.append(replies.WHOLE_NOTE(language))
        await say(interaction, "\n".join([header, *lines]))

    @notes.command(name="show", description="Read a note")
    @app_commands.describe(note="The note's number (e.g. 12)")
    async def show(self, interaction: discord.Interaction[Any], note: int) -> None:
        """Read one note in full, with who wrote it and when."""
        if interaction.guild_id is None:
            await say(
                interaction, replies.NOTES_NEED_SERVER(language_of_locale(interaction.locale))
            )
            return
        view = await self.notebook.get(interaction.guild_id, note)
        tz = await self.preferences.timezone(interaction.user.id)
        await say(interaction, note_card(view, tz, language_of_locale(interaction.locale)))

    @notes.command(name="delete", description="Delete a note")
    @app_commands.describe(note="The note's number (e.g. 12)")
    async def delete(self, interaction: discord.Interaction[Any], note: int) -> None:
        """Delete a note (your own, or anyone's if you moderate), after a confirmation."""
        if interaction.guild_id is None:
            await say(
                interaction, replies.NOTES_NEED_SERVER(language_of_locale(interaction.locale))
            )
            return
        view = await self.notebook.get(interaction.guild_id, note)
        language = language_of_locale(interaction.locale)
        if view.author_id != interaction.user.id and not self._moderator(interaction):
            await say(
                interaction,
                replies.NOT_YOUR_NOTE(language, label=view.label, name=view.author_name),
            )
            return
        notebook = self.notebook

        async def delete_note(clicked: discord.Interaction[Any]) -> str:
            # The notebook checks again who may: roles can change while the question waits.
            who = self.permissions.person(actor_of_interaction(clicked), clicked.user.display_name)
            try:
                await notebook.delete(view.guild_id, view.id, who)
            except NoteError as exc:
                return f"⚠️ {exc}"
            return replies.NOTE_DELETED(language, label=view.label)

        confirmation = DeleteConfirmation(
            kind="notedel",
            user_id=interaction.user.id,
            delete=delete_note,
            kept=replies.NOTE_KEPT(language, label=view.label),
            language=language,
        )
        tz = await self.preferences.timezone(interaction.user.id)
        await confirmation.ask(
            interaction,
            replies.DELETE_NOTE(language, label=view.label) + "\n" + note_card(view, tz, language),
        )

    @show.autocomplete("note")
    @delete.autocomplete("note")
    async def note_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        """The newest notes, or the ones whose number or words match what was typed."""
        if interaction.guild_id is None:
            return []
        typed = current.strip().lstrip("#")
        if typed and not typed.isdigit():
            hits = await self.notebook.search(interaction.guild_id, typed, CHOICES)
            found = [h.note for h in hits]
        else:
            found = (await self.notebook.page(interaction.guild_id, 1, CHOICES)).notes
            found = [n for n in found if typed in str(n.id)]
        return suggestions((f"#{n.id} {n.title} — {n.author_name}", n.id) for n in found)
