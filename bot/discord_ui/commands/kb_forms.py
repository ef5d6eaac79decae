"""The forms /kb opens: the text modal of a file, and what deleting a file does.

Also the sentences for a refusal and a failure, which the forms share with the cog in
:mod:`bot.discord_ui.commands.kb`; every answer goes through
:func:`bot.discord_ui.commands.private_replies.say`.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from bot.discord_ui.commands.confirmation import Delete
from bot.discord_ui.commands.private_replies import say
from bot.knowledge import Editor, KnowledgeEditError, KnowledgeEditor
from bot.knowledge.editor import FileContent
from bot.servers import ServerScope
from bot.text.clip import clip

log = logging.getLogger(__name__)

# Discord's limits: 4,000 characters in a modal's text input, 45 in a modal
# title or label, 100 in a label description.
MODAL_TEXT_CHARS = 4000
MODAL_TITLE_CHARS = 45
LABEL_DESCRIPTION_CHARS = 100
# A modal is kept while the admin types.
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


def file_deletion(
    editor: KnowledgeEditor,
    content: FileContent,
    editor_of: Callable[[discord.Interaction[Any]], Editor | None],
    scope: ServerScope,
) -> Delete:
    """What Delete does under `/kb delete`: remove the file unless it changed since asked."""

    async def delete(interaction: discord.Interaction[Any]) -> str:
        who = editor_of(interaction)
        if who is None:
            return REFUSAL
        source = content.source
        try:
            await editor.delete(content.path, who, scope=scope, expected_hash=content.content_hash)
        except KnowledgeEditError as exc:
            return f"⚠️ {exc}"
        except OSError as exc:
            log.error("Deleting %s failed: %s", source, exc)
            return FAILED
        return (
            f"🗑️ `{source}` を削除しました。/kb history に記録されています。/ Deleted "
            f"`{source}`; /kb history keeps the record."
        )

    return delete
