"""The forms /kb opens: the text modal of a file, and what deleting a file does.

Also the sentences for a refusal and a failure, which the forms share with the cog in
:mod:`bot.knowledge.discord_part.commands`; every answer goes through
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
from bot.i18n import Language, answers, language_of_locale, replies
from bot.knowledge import KnowledgeEditError, KnowledgeEditor
from bot.knowledge.editor import FileContent
from bot.members.permissions import Person
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


def refusal(interaction: discord.Interaction[Any]) -> str:
    """Why this member may not use /kb, in their Discord language."""
    return replies.KB_REFUSAL(language_of_locale(interaction.locale))


def failed(interaction: discord.Interaction[Any]) -> str:
    """The internal-error sentence, in the member's Discord language."""
    return answers.INTERNAL_ERROR(language_of_locale(interaction.locale))


class TextModal(discord.ui.Modal):
    """A file's text in a modal; submitting hands it to the cog to write."""

    def __init__(
        self,
        *,
        title: str,
        source: str,
        default: str,
        submit: Callable[[discord.Interaction[Any], str], Awaitable[None]],
        language: Language = "ja",
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
                text=replies.KB_TEXT_LABEL(language),
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
            await say(interaction, failed(interaction))


def file_deletion(
    editor: KnowledgeEditor,
    content: FileContent,
    editor_of: Callable[[discord.Interaction[Any]], Person | None],
    scope: ServerScope,
) -> Delete:
    """What Delete does under `/kb delete`: remove the file unless it changed since asked."""

    async def delete(interaction: discord.Interaction[Any]) -> str:
        who = editor_of(interaction)
        if who is None:
            return refusal(interaction)
        source = content.source
        try:
            await editor.delete(content.path, who, scope=scope, expected_hash=content.content_hash)
        except KnowledgeEditError as exc:
            return f"⚠️ {exc.said(language_of_locale(interaction.locale))}"
        except OSError as exc:
            log.error("Deleting %s failed: %s", source, exc)
            return failed(interaction)
        return replies.KB_FILE_DELETED(language_of_locale(interaction.locale), source=source)

    return delete
