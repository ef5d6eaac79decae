"""/notes: members list, search and read the server notebook; authors and admins delete.

Answers are ephemeral and ping nobody: notes are members' text and may hold @everyone.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
from datetime import tzinfo
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord_ui.private_replies import NO_MENTIONS, say
from bot.knowledge.views import clip
from bot.notes import NoteAuthor, Notebook, NoteError, NoteView
from bot.users import UserPreferences

log = logging.getLogger(__name__)

# Discord: 25 autocomplete choices of at most 100 characters; 2,000 characters a message.
CHOICES = 25
CHOICE_CHARS = 100
CONFIRM_SECONDS = 120
SNIPPET_CHARS = 80

NO_SERVER = (
    "メモはサーバーごとです。サーバーのチャンネルで使ってください。/ Notes belong to a server."
)
FAILED = (
    "ごめんなさい、内部エラーで完了できませんでした。少し待ってもう一度お願いします。/ Sorry, "
    "that failed on my side; please try again in a moment."
)


def is_note_admin(interaction: discord.Interaction[Any]) -> bool:
    """Moderators may delete anyone's note: Manage Server, Manage Messages or Administrator."""
    permissions = interaction.permissions
    return permissions.administrator or permissions.manage_guild or permissions.manage_messages


def when(note: NoteView, tz: tzinfo) -> str:
    """When a note was written, in the reader's zone."""
    return note.created_at.astimezone(tz).strftime("%Y-%m-%d %H:%M")


def note_line(note: NoteView, tz: tzinfo, snippet: str | None = None) -> str:
    """One line of a listing: number, title, author, time and the start of the text."""
    text = " ".join((snippet if snippet is not None else note.body).split())
    return f"**{note.label}** — {note.author_name}, {when(note, tz)}\n　{clip(text, SNIPPET_CHARS)}"


def note_card(note: NoteView, tz: tzinfo) -> str:
    """A whole note with who wrote it and when (and who edited it last)."""
    header = f"📝 **{note.label}** — {note.author_name}, {when(note, tz)}"
    if note.updated_by_name is not None:
        edited = note.updated_at.astimezone(tz).strftime("%Y-%m-%d %H:%M")
        header += f"（編集 / edited: {note.updated_by_name}, {edited}）"
    return f"{header}\n{note.body}"


class NotesCommands(commands.Cog):
    """/notes list, show and delete."""

    notes = app_commands.Group(
        name="notes", description="サーバーのメモ帳 / The server notebook", guild_only=True
    )

    def __init__(self, notebook: Notebook, preferences: UserPreferences) -> None:
        self.notebook = notebook
        self.preferences = preferences

    async def cog_app_command_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        """Notebook refusals are sentences; anything else is logged and told in one."""
        original = getattr(error, "original", error)
        if isinstance(original, NoteError):
            await say(interaction, f"⚠️ {original}")
            return
        log.error("/notes command failed", exc_info=original)
        await say(interaction, FAILED)

    @notes.command(name="list", description="メモの一覧・検索 / List or search the notes")
    @app_commands.describe(
        search="探す言葉（例: 旅行）/ Words to look for", page="ページ番号 / Page number"
    )
    async def list_notes(
        self,
        interaction: discord.Interaction[Any],
        search: str | None = None,
        page: app_commands.Range[int, 1, 1000] = 1,
    ) -> None:
        """List the server's notes, newest first, or the ones matching some words."""
        if interaction.guild_id is None:
            await say(interaction, NO_SERVER)
            return
        tz = await self.preferences.timezone(interaction.user.id)
        if search and search.strip():
            hits = await self.notebook.search(interaction.guild_id, search.strip(), 10)
            if not hits:
                await say(
                    interaction, f"「{clip(search, 50)}」に合うメモはありません。/ No note matches."
                )
                return
            lines = [note_line(h.note, tz, h.snippet) for h in hits]
            header = f"🔎 **メモ / Notes**「{clip(search, 50)}」"
        else:
            listing = await self.notebook.page(interaction.guild_id, page)
            if not listing.total:
                await say(
                    interaction,
                    "メモはまだありません。「@Otomo これメモしといて」で書けます。/ No notes yet; "
                    'mention me with "note this down" to write one.',
                )
                return
            lines = [note_line(n, tz) for n in listing.notes]
            header = (
                f"📒 **メモ帳 / Notebook**: {listing.total} 件 / notes — "
                f"{listing.page}/{listing.pages}"
            )
            if listing.page < listing.pages:
                lines.append(f"次のページ / Next page: `/notes list page:{listing.page + 1}`")
        lines.append("全文 / Whole note: `/notes show`")
        await say(interaction, "\n".join([header, *lines]))

    @notes.command(name="show", description="メモを読む / Read a note")
    @app_commands.describe(note="メモの番号（例: 12）/ The note's number")
    async def show(self, interaction: discord.Interaction[Any], note: int) -> None:
        """Read one note in full, with who wrote it and when."""
        if interaction.guild_id is None:
            await say(interaction, NO_SERVER)
            return
        view = await self.notebook.get(interaction.guild_id, note)
        await say(
            interaction, note_card(view, await self.preferences.timezone(interaction.user.id))
        )

    @notes.command(name="delete", description="メモを削除 / Delete a note")
    @app_commands.describe(note="メモの番号（例: 12）/ The note's number")
    async def delete(self, interaction: discord.Interaction[Any], note: int) -> None:
        """Delete a note (your own, or anyone's if you moderate), after a confirmation."""
        if interaction.guild_id is None:
            await say(interaction, NO_SERVER)
            return
        view = await self.notebook.get(interaction.guild_id, note)
        if view.author_id != interaction.user.id and not is_note_admin(interaction):
            await say(
                interaction,
                f"{view.label} は {view.author_name} さんのメモです。削除できるのは書いた人か管理者"
                f"だけです。/ Only {view.author_name} (who wrote it) or a moderator can delete it.",
            )
            return
        confirmation = NoteDeleteConfirmation(self, view, interaction.user.id)
        await interaction.response.send_message(
            f"🗑️ {view.label} を削除しますか？ / Delete this note?\n"
            + note_card(view, await self.preferences.timezone(interaction.user.id)),
            view=confirmation,
            ephemeral=True,
            allowed_mentions=NO_MENTIONS,
        )
        confirmation.asked = interaction

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
            found = [h.note for h in await self.notebook.search(interaction.guild_id, typed, 25)]
        else:
            found = (await self.notebook.page(interaction.guild_id, 1, CHOICES)).notes
            found = [n for n in found if typed in str(n.id)]
        return [
            app_commands.Choice(
                name=clip(f"#{n.id} {n.title} — {n.author_name}", CHOICE_CHARS), value=n.id
            )
            for n in found[:CHOICES]
        ]


class NoteDeleteConfirmation(discord.ui.View):
    """Delete / Cancel under the question; only the member who asked may answer."""

    def __init__(self, cog: NotesCommands, note: NoteView, user_id: int) -> None:
        super().__init__(timeout=CONFIRM_SECONDS)
        self.cog = cog
        self.note = note
        self.user_id = user_id
        self.asked: discord.Interaction[Any] | None = None
        token = secrets.token_hex(6)
        self.confirm.custom_id = f"notedel:{token}:yes"
        self.cancel.custom_id = f"notedel:{token}:no"

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        """Only the member who ran /notes delete."""
        return interaction.user.id == self.user_id

    @discord.ui.button(label="削除する / Delete", style=discord.ButtonStyle.danger)
    async def confirm(
        self, interaction: discord.Interaction[Any], _: discord.ui.Button[NoteDeleteConfirmation]
    ) -> None:
        """Delete the note (the notebook checks again who may)."""
        self.stop()
        member = interaction.user
        who = NoteAuthor(member.id, member.display_name, is_note_admin(interaction))
        try:
            await self.cog.notebook.delete(self.note.guild_id, self.note.id, who)
        except NoteError as exc:
            text = f"⚠️ {exc}"
        else:
            text = f"🗑️ {self.note.label} を削除しました。/ Deleted note {self.note.label}."
        await interaction.response.edit_message(content=text, view=None)

    @discord.ui.button(label="やめる / Cancel", style=discord.ButtonStyle.secondary)
    async def cancel(
        self, interaction: discord.Interaction[Any], _: discord.ui.Button[NoteDeleteConfirmation]
    ) -> None:
        """Keep the note."""
        self.stop()
        await interaction.response.edit_message(
            content=f"削除をやめました。/ Cancelled: {self.note.label} was kept.", view=None
        )

    async def on_timeout(self) -> None:
        """Say the question expired."""
        if self.asked is None:
            return
        with contextlib.suppress(discord.HTTPException):
            await self.asked.edit_original_response(
                content="⌛ 確認の期限が切れました。削除していません。/ The confirmation expired; "
                "nothing was deleted.",
                view=None,
            )
