"""/model: a server's admins choose which of the offered models Otomo uses there."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.agent.llm.models import ModelChoice, UnknownModel
from bot.discord_ui.commands.private_replies import say
from bot.discord_ui.members import actor_of_interaction
from bot.i18n import Language, language_of_locale, replies
from bot.members.permissions import Permissions

log = logging.getLogger(__name__)

# Discord shows at most 25 autocomplete choices of at most 100 characters.
CHOICES = 25
CHOICE_CHARS = 100


def describe_model(model: str, sees_images: bool, language: Language = "ja") -> str:
    """`name` plus whether it can see images."""
    said = replies.SEES_IMAGES if sees_images else replies.NO_IMAGES
    return said(language, model=model)


class ModelCommands(commands.Cog):
    """/model [name]: show the choices, or switch this server's model (admins)."""

    def __init__(
        self, models: ModelChoice, sees_images: Callable[[str], bool], permissions: Permissions
    ) -> None:
        self.permissions = permissions
        self.models = models
        self.sees_images = sees_images

    @app_commands.command(name="model", description="The AI model Otomo uses")
    @app_commands.guild_only()
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.describe(name="The model to switch to")
    async def model(self, interaction: discord.Interaction[Any], name: str | None = None) -> None:
        """Show this server's model and the choices, or switch to one (admins)."""
        language = language_of_locale(interaction.locale)
        if interaction.guild_id is None:
            await say(interaction, replies.MODEL_NEEDS_SERVER(language))
            return
        if not self.permissions.is_server_admin(actor_of_interaction(interaction)):
            await say(interaction, replies.MODEL_REFUSAL(language))
            return
        if name is None:
            await say(interaction, await self._overview(interaction.guild_id, language))
            return
        try:
            await self.models.choose(interaction.guild_id, name.strip(), interaction.user.id)
        except UnknownModel as exc:
            await say(interaction, f"⚠️ {exc}")
            return
        log.info(
            "Server %s switched to model %s (by %s)",
            interaction.guild_id,
            name.strip(),
            interaction.user.id,
        )
        chosen = name.strip()
        model = describe_model(chosen, self.sees_images(chosen), language)
        await say(interaction, replies.MODEL_SWITCHED(language, model=model))

    async def _overview(self, guild_id: int, language: Language) -> str:
        current = await self.models.current(guild_id)
        model = describe_model(current, self.sees_images(current), language)
        lines = [replies.CURRENT_MODEL(language, model=model), replies.MODEL_CHOICES(language)]
        for choice in self.models.choices:
            default = replies.DEFAULT_MODEL(language) if choice == self.models.default else ""
            lines.append(f"• `{choice}`{default}")
        if len(self.models.choices) == 1:
            lines.append(replies.MORE_MODELS(language))
        return "\n".join(lines)

    @model.autocomplete("name")
    async def model_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        """The offered models containing what was typed, the current one marked."""
        chosen = await self.models.current(interaction.guild_id)
        needle = current.strip().lower()
        found: list[app_commands.Choice[str]] = []
        for choice in self.models.choices:
            if needle not in choice.lower() or len(choice) > CHOICE_CHARS:
                continue
            label = f"{choice} ✓" if choice == chosen else choice
            found.append(app_commands.Choice(name=label[:CHOICE_CHARS], value=choice))
        return found[:CHOICES]
