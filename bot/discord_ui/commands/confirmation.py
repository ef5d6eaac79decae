"""Delete / Cancel under a question, for the slash commands that delete something."""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from bot.discord_ui.commands.private_replies import NO_MENTIONS, say
from bot.i18n import Language, replies

# A question is answerable for this long (an interaction's token lives 15 minutes).
CONFIRM_SECONDS = 120


# What pressing Delete does; it returns the sentence that replaces the question.
Delete = Callable[[discord.Interaction[Any]], Awaitable[str]]


class DeleteConfirmation(discord.ui.View):
    """Delete / Cancel under a question: only the member who asked may answer, the answer
    replaces the question, and a question left unanswered says it expired."""

    def __init__(
        self,
        *,
        kind: str,
        user_id: int,
        delete: Delete,
        kept: str,
        slow: bool = False,
        language: Language = "ja",
    ) -> None:
        super().__init__(timeout=CONFIRM_SECONDS)
        self.user_id = user_id
        self._delete = delete
        self._kept = kept
        # A slow deletion (files, an index) is acknowledged first: Discord waits 3 seconds.
        self._slow = slow
        self._asked: discord.Interaction[Any] | None = None
        token = secrets.token_hex(6)
        self.confirm.custom_id = f"{kind}:{token}:yes"
        self.cancel.custom_id = f"{kind}:{token}:no"
        # In the language of the member who asked (their Discord's).
        self.language = language
        self.confirm.label = replies.DELETE(language)
        self.cancel.label = replies.CANCEL(language)

    async def ask(self, interaction: discord.Interaction[Any], question: str) -> None:
        """Post the question with the buttons under it, privately."""
        await say(interaction, question, view=self)
        self._asked = interaction

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        """Only the member who asked."""
        return interaction.user.id == self.user_id

    @discord.ui.button(label=replies.DELETE.en, style=discord.ButtonStyle.danger)
    async def confirm(
        self, interaction: discord.Interaction[Any], _: discord.ui.Button[DeleteConfirmation]
    ) -> None:
        """Delete, then say what happened in place of the question."""
        self.stop()
        if not self._slow:
            text = await self._delete(interaction)
            await interaction.response.edit_message(
                content=text, view=None, allowed_mentions=NO_MENTIONS
            )
            return
        await interaction.response.defer()
        text = await self._delete(interaction)
        await interaction.edit_original_response(
            content=text, view=None, allowed_mentions=NO_MENTIONS
        )

    @discord.ui.button(label=replies.CANCEL.en, style=discord.ButtonStyle.secondary)
    async def cancel(
        self, interaction: discord.Interaction[Any], _: discord.ui.Button[DeleteConfirmation]
    ) -> None:
        """Keep it."""
        self.stop()
        await interaction.response.edit_message(content=self._kept, view=None)

    async def on_timeout(self) -> None:
        """Say the question expired."""
        if self._asked is None:
            return
        with contextlib.suppress(discord.HTTPException):
            await self._asked.edit_original_response(
                content=replies.CONFIRMATION_EXPIRED(self.language), view=None
            )
