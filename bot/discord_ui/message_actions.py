"""A message action (right-click a message → Apps) that opens a form: its menu entry, and the
checks every such action makes before the form opens."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands

from bot.discord_ui.commands.private_replies import say
from bot.i18n import Language, language_of_locale

# Why Otomo does not take this click here (a sentence in the clicker's language), or None.
Refusal = Callable[[discord.Interaction[Any], Language], str | None]
# The form the action opens for this message, in the clicker's language.
FormFor = Callable[[discord.Message, Language], discord.ui.Modal]


class MessageAction:
    """One message command: added to and taken out of the client's tree, and opening its form
    unless the action is refused here."""

    def __init__(self, client: discord.Client, name: str, refusal: Refusal, form: FormFor) -> None:
        self._client = client
        self._refusal = refusal
        self._form = form
        self.menu = app_commands.ContextMenu(name=name, callback=self.open_form)
        # Both actions answer in a server's channel; in DMs a member simply writes to Otomo.
        self.menu.guild_only = True

    def add(self) -> None:
        """Put the message command in the tree (cogs cannot declare context menus)."""
        tree = getattr(self._client, "tree", None)
        if tree is not None:
            tree.add_command(self.menu)

    def remove(self) -> None:
        """Take the message command out of the tree."""
        tree = getattr(self._client, "tree", None)
        if tree is not None:
            tree.remove_command(self.menu.name, type=self.menu.type)

    async def open_form(
        self, interaction: discord.Interaction[Any], message: discord.Message
    ) -> None:
        """Open the form, or say privately why not (a form must be the first answer, within
        Discord's 3 s)."""
        language = language_of_locale(interaction.locale)
        refused = self._refusal(interaction, language)
        if refused is not None:
            await say(interaction, refused)
            return
        await interaction.response.send_modal(self._form(message, language))
