"""/kb: admins list, read, edit, create and delete knowledge-base files, see history, reload.

Thin: every command checks who is asking and calls the KnowledgeEditor. Answers are ephemeral
and ping nobody, since file text may contain @everyone or role mentions. The forms it opens (and
``say``, which sends every answer) are in :mod:`bot.discord_ui.commands.kb_forms`.
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
from bot.discord_ui.commands.kb_forms import (
    FAILED,
    MODAL_TEXT_CHARS,
    REFUSAL,
    TextModal,
    file_deletion,
)
from bot.discord_ui.commands.kb_replies import (
    Write,
    as_file,
    discord_length,
    fit,
    write_submitted,
    write_uploaded,
)
from bot.discord_ui.commands.private_replies import MESSAGE_CHARS, say
from bot.discord_ui.members import actor_of_interaction
from bot.knowledge import ChangeEntry, Editor, KnowledgeEditError, KnowledgeEditor
from bot.knowledge.display import (
    describe_change,
    describe_file,
    describe_refresh,
    format_size,
)
from bot.knowledge.edit_terms import owners_only_text, shared_file_text
from bot.members.permissions import Permissions
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

    kb = app_commands.Group(
        name="kb", description="ナレッジベースの管理 / Manage the knowledge base", guild_only=True
    )

    def __init__(
        self, editor: KnowledgeEditor, preferences: UserPreferences, permissions: Permissions
    ) -> None:
        self.editor = editor
        self.preferences = preferences
        self.permissions = permissions

    # -- who may ------------------------------------------------------------------------

    def editor_of(self, interaction: discord.Interaction[Any]) -> Editor | None:
        """The member as an Editor if they may edit this server's knowledge (its admins and
        knowledge editors, and the bot's owners, who alone change the shared files), else None."""
        member = interaction.user
        if not isinstance(member, discord.Member):
            return None
        actor = actor_of_interaction(interaction)
        owner = self.permissions.is_bot_owner(actor)
        if not owner and not self.permissions.is_knowledge_editor(actor):
            return None
        return Editor(member.id, member.display_name, bot_owner=owner)

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        """Every /kb command: admins only; others get an ephemeral refusal."""
        if self.editor_of(interaction) is None:
            await say(interaction, REFUSAL)
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
            await say(interaction, f"⚠️ {original}")
            return
        log.error("/kb command failed", exc_info=original)
        await say(interaction, FAILED)

    def _editor(self, interaction: discord.Interaction[Any]) -> Editor:
        editor = self.editor_of(interaction)
        assert editor is not None  # interaction_check let only editors in
        return editor

    # -- reading ------------------------------------------------------------------------

    @kb.command(name="list", description="ファイル一覧 / List the files")
    @app_commands.describe(
        folder="このフォルダの中だけ（例: guides）/ Only files in this folder",
        page="ページ番号 / Page number",
    )
    async def list_files(
        self,
        interaction: discord.Interaction[Any],
        folder: str | None = None,
        page: app_commands.Range[int, 1, 1000] = 1,
    ) -> None:
        """List the knowledge-base files with their sizes, a page at a time."""
        files = await self.editor.list_files(folder or "", scope=scope_of(interaction))
        where = f" `{clip(folder, 100)}`" if folder else ""
        if not files:
            await say(
                interaction,
                f"ファイルはありません{where}。/kb new で作れます。/ No files"
                f"{where}; create one with /kb new.",
            )
            return
        pages = math.ceil(len(files) / LIST_PAGE_SIZE)
        page = min(page, pages)
        shown = files[(page - 1) * LIST_PAGE_SIZE : page * LIST_PAGE_SIZE]
        total = sum(f.size for f in files)
        header = (
            f"📚 **ナレッジベース / Knowledge base**{where}: {len(files)} ファイル / files, "
            f"{format_size(total)} — {page}/{pages}"
        )
        lines = [clip(describe_file(f), 95) for f in shown]
        if page < pages:
            option = f" folder:{folder}" if folder else ""
            lines.append(f"次のページ / Next page: `/kb list{option} page:{page + 1}`")
        await say(interaction, fit(lines, header))

    @kb.command(name="show", description="ファイルの中身 / Show a file")
    @app_commands.describe(path="例: faq.md, guides/rules.md")
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
            f"{header}\nファイルで送ります。/ Attached as a file.",
            file=as_file(content.text, content.path),
        )

    @kb.command(name="history", description="変更履歴 / Recent changes")
    @app_commands.describe(
        path="このファイルだけ / Only this file", count="件数 / How many changes"
    )
    async def history(
        self,
        interaction: discord.Interaction[Any],
        path: str | None = None,
        count: app_commands.Range[int, 1, HISTORY_MAX] = HISTORY_DEFAULT,
    ) -> None:
        """Who changed which file when (in my time zone), and how the size changed."""
        entries = await self.editor.history(path or None, count, scope=scope_of(interaction))
        if not entries:
            await say(interaction, "まだ変更の記録はありません。/ No changes recorded yet.")
            return
        tz = await self.preferences.timezone(interaction.user.id)
        lines = [describe_change(e, self.editor.change_source(e), tz) for e in entries]
        await say(interaction, fit(lines, f"🕘 **変更履歴 / Changes** ({tz.key})"))

    # -- writing ------------------------------------------------------------------------

    @kb.command(name="edit", description="ファイルを編集 / Edit a file")
    @app_commands.describe(
        path="例: faq.md",
        file="4,000文字を超えるファイルは .md を添付して置き換え / Replace with an uploaded .md",
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

            async def upload(path: str, text: str, who: Editor) -> ChangeEntry:
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
                f"`{content.source}` は {length:,} 文字あり、フォームに入る "
                f"{MODAL_TEXT_CHARS:,} 文字を超えています。添付の今のファイルを編集して、"
                f"`/kb edit path:{content.path} file:<ファイル>` でアップロードしてください。/ "
                f"`{content.source}` has {length:,} characters, more than a form holds "
                f"({MODAL_TEXT_CHARS:,}). Edit the attached copy and upload it with "
                f"`/kb edit path:{content.path} file:<attachment>`.",
                file=as_file(content.text, content.path),
            )
            return

        async def write(text: str, who: Editor) -> ChangeEntry:
            # The hash of what the form showed: an edit saved meanwhile is not overwritten.
            return await self.editor.replace(
                content.path, text, who, scope=scope, expected_hash=content.content_hash
            )

        await interaction.response.send_modal(
            TextModal(
                title=f"編集 / Edit: {content.path}",
                source=content.source,
                default=content.text,
                submit=lambda submitted, text: self._write(submitted, text, write, content.path),
            )
        )

    @kb.command(name="new", description="ファイルを作る / Create a file")
    @app_commands.describe(
        path="例: guides/boost.md",
        file="本文の .md ファイル / The .md file",
        shared="全サーバー共通のファイルにする（ボットの管理者のみ）/ A shared file of every "
        "server (the bot's owners only)",
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

            async def upload(path: str, text: str, who: Editor) -> ChangeEntry:
                return await self.editor.create(path, text, who, scope=scope, shared=shared)

            await write_uploaded(interaction, self.editor, file, editor, upload, path)
            return
        relative = await self.editor.check_new(path, scope=scope, shared=shared)

        async def write(text: str, who: Editor) -> ChangeEntry:
            return await self.editor.create(relative, text, who, scope=scope, shared=shared)

        title = PurePosixPath(relative).stem.replace("-", " ").replace("_", " ")
        await interaction.response.send_modal(
            TextModal(
                title=f"新規 / New: {relative}",
                source=self.editor.source_of(
                    relative
                    if shared or scope.knowledge_folder is None
                    else f"{scope.knowledge_folder}/{relative}"
                ),
                default=f"# {title}\n\n",
                submit=lambda submitted, text: self._write(submitted, text, write, relative),
            )
        )

    @kb.command(name="delete", description="ファイルを削除 / Delete a file")
    @app_commands.describe(path="例: faq.md")
    async def delete(self, interaction: discord.Interaction[Any], path: str) -> None:
        """Delete a file (this server's own; a shared one only by the bot's owners) after a
        confirmation."""
        scope = scope_of(interaction)
        content = await self.editor.read(path, scope=scope)
        if content.shared and not self._editor(interaction).bot_owner:
            raise KnowledgeEditError(shared_file_text(content.path))
        confirmation = DeleteConfirmation(
            kind="kbdel",
            user_id=interaction.user.id,
            delete=file_deletion(self.editor, content, self.editor_of, scope),
            kept=f"削除をやめました。/ Cancelled: `{content.source}` was kept.",
            slow=True,
        )
        await confirmation.ask(
            interaction,
            f"⚠️ `{content.source}`（{format_size(content.size)}）を削除しますか？ 取り消せません。"
            f"/ Delete `{content.source}` ({format_size(content.size)})? This cannot be undone.",
        )

    @kb.command(name="reload", description="ディスクから読み直す / Re-read the files from disk")
    async def reload(self, interaction: discord.Interaction[Any]) -> None:
        """Re-scan the folder now, for files changed outside Discord."""
        # Tokenising many changed files can take longer than Discord's 3-second deadline.
        await interaction.response.defer(ephemeral=True, thinking=True)
        report = await self.editor.reload()
        await say(interaction, describe_refresh(report))

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
