"""/kb: admins list, read, edit, create and delete knowledge-base files, see history, reload.

Thin: every command checks who is asking and calls the KnowledgeEditor. Answers are ephemeral
and ping nobody, since file text may contain @everyone or role mentions. The forms it opens (and
``say``, which sends every answer) are in :mod:`bot.knowledge.discord_part.forms`.
"""

from __future__ import annotations

import logging
import math
from pathlib import PurePosixPath
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord_ui.commands.choices import suggestions
from bot.discord_ui.commands.confirmation import DeleteConfirmation
from bot.discord_ui.commands.private_replies import MESSAGE_CHARS, say
from bot.discord_ui.members import actor_of_interaction
from bot.i18n import language_of_locale, replies
from bot.knowledge import ChangeEntry, KnowledgeEditError, KnowledgeEditor
from bot.knowledge.discord_part.forms import (
    MODAL_TEXT_CHARS,
    TextModal,
    failed,
    file_deletion,
    refusal,
)
from bot.knowledge.discord_part.replies import (
    Write,
    as_file,
    discord_length,
    fit,
    write_submitted,
    write_uploaded,
)
from bot.knowledge.display import (
    describe_change,
    describe_file,
    describe_refresh,
    format_size,
)
from bot.knowledge.edit_terms import owners_only_text, shared_file_text
from bot.members.permissions import Permissions, Person
from bot.members.preferences import UserPreferences
from bot.servers import ServerScope
from bot.text.clip import clip

log = logging.getLogger(__name__)

LIST_PAGE_SIZE = 20
HISTORY_DEFAULT = 10
HISTORY_MAX = 25


def scope_of(interaction: discord.Interaction[Any]) -> ServerScope:
    """The server the command runs in: its own files over the shared base."""
    return ServerScope.of(interaction.guild_id)


class KnowledgeCommands(commands.Cog):
    """/kb list, show, edit, new, delete, history and reload, for knowledge-base admins."""

    kb = app_commands.Group(name="kb", description="Manage the knowledge base", guild_only=True)

    def __init__(
        self, editor: KnowledgeEditor, preferences: UserPreferences, permissions: Permissions
    ) -> None:
        self.editor = editor
        self.preferences = preferences
        self.permissions = permissions

    # -- who may ------------------------------------------------------------------------

    def editor_of(self, interaction: discord.Interaction[Any]) -> Person | None:
        """The member as a Person if they may edit this server's knowledge (its admins and
        knowledge editors, and the bot's owners, who alone change the shared files), else None."""
        member = interaction.user
        if not isinstance(member, discord.Member):
            return None
        actor = actor_of_interaction(interaction)
        editor = self.permissions.person(actor, member.display_name)
        if not editor.bot_owner and not self.permissions.is_knowledge_editor(actor):
            return None
        return editor

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        """Every /kb command: admins only; others get an ephemeral refusal."""
        if self.editor_of(interaction) is None:
            await say(interaction, refusal(interaction))
            return False
        return True

    async def cog_app_command_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        """Refusals were already sent; editor errors are sentences; the rest is logged."""
        if isinstance(error, app_commands.CheckFailure):
            return
        original = getattr(error, "original", error)
        if isinstance(original, KnowledgeEditError):
            await say(interaction, f"⚠️ {original.said(language_of_locale(interaction.locale))}")
            return
        log.error("/kb command failed", exc_info=original)
        await say(interaction, failed(interaction))

    def _editor(self, interaction: discord.Interaction[Any]) -> Person:
        editor = self.editor_of(interaction)
        assert editor is not None  # interaction_check let only editors in
        return editor

    # -- reading ------------------------------------------------------------------------

    @kb.command(name="list", description="List the files")
    @app_commands.describe(
        folder="Only files in this folder (e.g. guides)",
        page="Page number",
    )
    async def list_files(
        self,
        interaction: discord.Interaction[Any],
        folder: str | None = None,
        page: app_commands.Range[int, 1, 1000] = 1,
    ) -> None:
        """List the knowledge-base files with their sizes, a page at a time."""
        files = await self.editor.list_files(folder or "", scope=scope_of(interaction))
        language = language_of_locale(interaction.locale)
        where = f" `{clip(folder, 100)}`" if folder else ""
        if not files:
            await say(interaction, replies.KB_NO_FILES(language, where=where))
            return
        pages = math.ceil(len(files) / LIST_PAGE_SIZE)
        page = min(page, pages)
        shown = files[(page - 1) * LIST_PAGE_SIZE : page * LIST_PAGE_SIZE]
        total = sum(f.size for f in files)
        header = replies.KB_LIST(
            language,
            where=where,
            count=len(files),
            size=format_size(total),
            page=page,
            pages=pages,
        )
        lines = [clip(describe_file(f), 95) for f in shown]
        if page < pages:
            option = f" folder:{folder}" if folder else ""
            command = f"/kb list{option} page:{page + 1}"
            lines.append(replies.KB_NEXT_PAGE(language, command=command))
        await say(interaction, fit(lines, header, language))

    @kb.command(name="show", description="Show a file")
    @app_commands.describe(path="e.g. faq.md, guides/rules.md")
    async def show(self, interaction: discord.Interaction[Any], path: str) -> None:
        """Show a file's text; long files (or ones with code fences) come as an attachment."""
        content = await self.editor.read(path, scope=scope_of(interaction))
        header = f"📄 `{content.source}` ({format_size(content.size)})"
        block = f"{header}\n```md\n{content.text.rstrip()}\n```"
        if "```" not in content.text and len(block) <= MESSAGE_CHARS:
            await say(interaction, block)
            return
        await say(
            interaction,
            replies.KB_ATTACHED(language_of_locale(interaction.locale), header=header),
            file=as_file(content.text, content.path),
        )

    @kb.command(name="history", description="Recent changes")
    @app_commands.describe(path="Only this file", count="How many changes")
    async def history(
        self,
        interaction: discord.Interaction[Any],
        path: str | None = None,
        count: app_commands.Range[int, 1, HISTORY_MAX] = HISTORY_DEFAULT,
    ) -> None:
        """Who changed which file when (in my time zone), and how the size changed."""
        entries = await self.editor.history(path or None, count, scope=scope_of(interaction))
        language = language_of_locale(interaction.locale)
        if not entries:
            await say(interaction, replies.KB_NO_CHANGES(language))
            return
        tz = await self.preferences.timezone(interaction.user.id)
        lines = [describe_change(e, self.editor.change_source(e), tz, language) for e in entries]
        await say(interaction, fit(lines, replies.KB_CHANGES(language, zone=tz.key), language))

    # -- writing ------------------------------------------------------------------------

    @kb.command(name="edit", description="Edit a file")
    @app_commands.describe(
        path="e.g. faq.md",
        file="Replace with an uploaded .md",
    )
    async def edit(
        self,
        interaction: discord.Interaction[Any],
        path: str,
        file: discord.Attachment | None = None,
    ) -> None:
        """Edit a file in a form, or replace it with an uploaded file."""
        editor = self._editor(interaction)
        scope = scope_of(interaction)
        if file is not None:

            async def upload(path: str, text: str, who: Person) -> ChangeEntry:
                return await self.editor.replace(path, text, who, scope=scope)

            await write_uploaded(interaction, self.editor, file, editor, upload, path)
            return
        content = await self.editor.read(path, scope=scope)
        if content.shared and not editor.bot_owner:
            raise KnowledgeEditError(shared_file_text(content.path))
        length = discord_length(content.text)
        if length > MODAL_TEXT_CHARS:
            await say(
                interaction,
                replies.KB_TOO_LONG_FOR_FORM(
                    language_of_locale(interaction.locale),
                    source=content.source,
                    length=f"{length:,}",
                    limit=f"{MODAL_TEXT_CHARS:,}",
                    path=content.path,
                ),
                file=as_file(content.text, content.path),
            )
            return

        async def write(text: str, who: Person) -> ChangeEntry:
            # The hash of what the form showed: an edit saved meanwhile is not overwritten.
            return await self.editor.replace(
                content.path, text, who, scope=scope, expected_hash=content.content_hash
            )

        await interaction.response.send_modal(
            TextModal(
                title=replies.KB_EDIT_TITLE(
                    language_of_locale(interaction.locale), path=content.path
                ),
                source=content.source,
                default=content.text,
                submit=lambda submitted, text: self._write(submitted, text, write, content.path),
                language=language_of_locale(interaction.locale),
            )
        )

    @kb.command(name="new", description="Create a file")
    @app_commands.describe(
        path="e.g. guides/boost.md",
        file="The .md file",
        shared="A shared file of every server (the bot's owners only)",
    )
    async def new(
        self,
        interaction: discord.Interaction[Any],
        path: str,
        file: discord.Attachment | None = None,
        shared: bool = False,
    ) -> None:
        """Create a file in this server's own folder (or, for the bot's owners, a shared one)
        from a form, or from an uploaded file."""
        editor = self._editor(interaction)
        scope = scope_of(interaction)
        if shared and not editor.bot_owner:
            raise KnowledgeEditError(owners_only_text())
        if file is not None:

            async def upload(path: str, text: str, who: Person) -> ChangeEntry:
                return await self.editor.create(path, text, who, scope=scope, shared=shared)

            await write_uploaded(interaction, self.editor, file, editor, upload, path)
            return
        relative = await self.editor.check_new(path, scope=scope, shared=shared)

        async def write(text: str, who: Person) -> ChangeEntry:
            return await self.editor.create(relative, text, who, scope=scope, shared=shared)

        title = PurePosixPath(relative).stem.replace("-", " ").replace("_", " ")
        await interaction.response.send_modal(
            TextModal(
                title=replies.KB_NEW_TITLE(language_of_locale(interaction.locale), path=relative),
                source=self.editor.source_of(
                    relative
                    if shared or scope.knowledge_folder is None
                    else f"{scope.knowledge_folder}/{relative}"
                ),
                default=f"# {title}\n\n",
                submit=lambda submitted, text: self._write(submitted, text, write, relative),
                language=language_of_locale(interaction.locale),
            )
        )

    @kb.command(name="delete", description="Delete a file")
    @app_commands.describe(path="e.g. faq.md")
    async def delete(self, interaction: discord.Interaction[Any], path: str) -> None:
        """Delete a file (this server's own; a shared one only by the bot's owners) after a
        confirmation."""
        language = language_of_locale(interaction.locale)
        scope = scope_of(interaction)
        content = await self.editor.read(path, scope=scope)
        if content.shared and not self._editor(interaction).bot_owner:
            raise KnowledgeEditError(shared_file_text(content.path))
        confirmation = DeleteConfirmation(
            kind="kbdel",
            user_id=interaction.user.id,
            delete=file_deletion(self.editor, content, self.editor_of, scope),
            kept=replies.KB_KEPT(language, source=content.source),
            slow=True,
            language=language,
        )
        await confirmation.ask(
            interaction,
            replies.KB_DELETE(language, source=content.source, size=format_size(content.size)),
        )

    @kb.command(name="reload", description="Re-read the files from disk")
    async def reload(self, interaction: discord.Interaction[Any]) -> None:
        """Re-scan the folder now, for files changed outside Discord."""
        # Tokenising many changed files can take longer than Discord's 3-second deadline.
        await interaction.response.defer(ephemeral=True, thinking=True)
        report = await self.editor.reload()
        await say(interaction, describe_refresh(report, language_of_locale(interaction.locale)))

    # -- helpers ------------------------------------------------------------------------

    async def _write(
        self, interaction: discord.Interaction[Any], text: str, write: Write, path: str
    ) -> None:
        who = self.editor_of(interaction)
        await write_submitted(interaction, self.editor, who, text, write, path)

    @show.autocomplete("path")
    @edit.autocomplete("path")
    @delete.autocomplete("path")
    @history.autocomplete("path")
    async def path_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        """Existing files whose path contains what was typed (admins only)."""
        if self.editor_of(interaction) is None:
            return []
        needle = current.strip().lower()
        files = await self.editor.list_files(scope=scope_of(interaction))
        return suggestions((f.path, f.path) for f in files if needle in f.path.lower())
