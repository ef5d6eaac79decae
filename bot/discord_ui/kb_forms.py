"""The forms /kb opens: the text modal of a file and the delete confirmation.

Also the sentences for a refusal and a failure, which the forms share with the cog in
:mod:`bot.discord_ui.kb_commands`; every answer goes through
:func:`bot.discord_ui.private_replies.say`.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord

from bot.discord_ui.private_replies import NO_MENTIONS, say
from bot.knowledge import KnowledgeEditError
from bot.knowledge.editor import FileContent
from bot.knowledge.views import clip

if TYPE_CHECKING:
    from bot.discord_ui.kb_commands import KnowledgeCommands

log = logging.getLogger(__name__)

# Discord's limits: 4,000 characters in a modal's text input, 45 in a modal
# title or label, 100 in a label description.
MODAL_TEXT_CHARS = 4000
MODAL_TITLE_CHARS = 45
LABEL_DESCRIPTION_CHARS = 100
# A delete confirmation is answerable for this long; a modal is kept while the admin types.
CONFIRM_SECONDS = 120
MODAL_SECONDS = 3600

REFUSAL = (
    "ナレッジベースを編集できるのは「サーバー管理」権限か、ナレッジベース管理ロールを持つ"
    "メンバーだけです。/ Only members with Manage Server or a knowledge-base admin role "
    "(KB_ADMIN_ROLE_IDS) can use /kb."
)
FAILED = (
    "ごめんなさい、内部エラーで完了できませんでした。少し待ってもう一度お願いします。/ Sorry, "
    "that failed on my side; please try again in a moment."
)


class TextModal(discord.ui.Modal):
    """A file's text in a modal; submitting hands it to the cog to write."""

    def __init__(
        self,
        *,
        title: str,
        source: str,
        default: str,
        submit: Callable[[discord.Interaction[Any], str], Awaitable[None]],
    ) -> None:
        # A random custom_id: each opened modal is its own form, answered only by its opener.
        super().__init__(
            title=clip(title, MODAL_TITLE_CHARS),
            custom_id=f"kb:text:{secrets.token_hex(8)}",
            timeout=MODAL_SECONDS,
        )
        self.text: discord.ui.TextInput[TextModal] = discord.ui.TextInput(
            custom_id="text",
            style=discord.TextStyle.paragraph,
            default=default or None,
            max_length=MODAL_TEXT_CHARS,
            required=True,
        )
        self.add_item(
            discord.ui.Label(
                text="本文（Markdown）/ Text (markdown)",
                description=clip(source, LABEL_DESCRIPTION_CHARS),
                component=self.text,
            )
        )
        self._submit = submit

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        """Write the submitted text; an unexpected failure is logged and told in a sentence."""
        try:
            await self._submit(interaction, self.text.value)
        except Exception:
            log.exception("Saving a /kb form failed")
            await say(interaction, FAILED)


class DeleteConfirmation(discord.ui.View):
    """Delete / Cancel under the question; only the admin who asked may answer."""

    def __init__(self, cog: KnowledgeCommands, content: FileContent, user_id: int) -> None:
        super().__init__(timeout=CONFIRM_SECONDS)
        self.cog = cog
        self.content = content
        self.user_id = user_id
        self.asked: discord.Interaction[Any] | None = None
        token = secrets.token_hex(6)
        self.confirm.custom_id = f"kbdel:{token}:yes"
        self.cancel.custom_id = f"kbdel:{token}:no"

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        """Only the admin who ran /kb delete."""
        return interaction.user.id == self.user_id

    @discord.ui.button(label="削除する / Delete", style=discord.ButtonStyle.danger)
    async def confirm(
        self, interaction: discord.Interaction[Any], _: discord.ui.Button[DeleteConfirmation]
    ) -> None:
        """Delete the file, unless it changed since the question was asked."""
        self.stop()
        editor = self.cog.editor_of(interaction)
        if editor is None:
            await interaction.response.edit_message(content=REFUSAL, view=None)
            return
        await interaction.response.defer()
        source = self.content.source
        try:
            await self.cog.editor.delete(
                self.content.path, editor, expected_hash=self.content.content_hash
            )
        except KnowledgeEditError as exc:
            text = f"⚠️ {exc}"
        except OSError as exc:
            log.error("Deleting %s failed: %s", source, exc)
            text = FAILED
        else:
            text = (
                f"🗑️ `{source}` を削除しました。/kb history に記録されています。/ Deleted "
                f"`{source}`; /kb history keeps the record."
            )
        await interaction.edit_original_response(
            content=text, view=None, allowed_mentions=NO_MENTIONS
        )

    @discord.ui.button(label="やめる / Cancel", style=discord.ButtonStyle.secondary)
    async def cancel(
        self, interaction: discord.Interaction[Any], _: discord.ui.Button[DeleteConfirmation]
    ) -> None:
        """Keep the file."""
        self.stop()
        await interaction.response.edit_message(
            content=f"削除をやめました。/ Cancelled: `{self.content.source}` was kept.", view=None
        )

    async def on_timeout(self) -> None:
        """Say the question expired (the token of the question lives 15 minutes)."""
        if self.asked is None:
            return
        with contextlib.suppress(discord.HTTPException):
            await self.asked.edit_original_response(
                content="⌛ 確認の期限が切れました。削除していません。/ The confirmation expired; "
                "nothing was deleted.",
                view=None,
            )
