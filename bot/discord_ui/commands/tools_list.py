"""`/tools list` for admins: every tool from outside with its source, scope and health."""

from __future__ import annotations

from typing import Any

import discord

from bot.discord_ui.members import actor_of_interaction
from bot.extools import ExternalToolsRuntime, ToolStatus
from bot.i18n import Language, language_of_locale, replies
from bot.members.permissions import Permissions
from bot.text.clip import clip

# Discord allows 25 options in a select menu and 4,096 characters in an embed description.
SELECT_LIMIT = 25
DESCRIPTION_LIMIT = 4000


def health_text(status: ToolStatus, language: Language = "ja") -> str:
    """The health column: on, off by an admin, or unavailable and why."""
    if status.disabled:
        return replies.TOOL_DISABLED(language)
    if status.available:
        return replies.TOOL_AVAILABLE(language)
    return replies.TOOL_UNAVAILABLE(language, why=status.detail or "not answering")


def scope_text(status: ToolStatus) -> str:
    """Which handlers and which server may use the tool."""
    handlers = ", ".join(status.handlers) if status.handlers else "all handlers"
    guild = "all servers" if status.guild_id is None else f"server {status.guild_id}"
    return f"{handlers}; {guild}"


def listing(statuses: list[ToolStatus], language: Language = "ja") -> str:
    """The embed text, one block per tool."""
    if not statuses:
        return replies.NO_TOOLS_LISTED(language)
    blocks = [
        f"**`{s.name}`** ({s.kind}) — source `{s.source}`\nscope: {scope_text(s)}\n"
        + health_text(s, language)
        for s in statuses
    ]
    text = "\n\n".join(blocks)
    return clip(text, DESCRIPTION_LIMIT)


def listing_embed(statuses: list[ToolStatus], language: Language = "ja") -> discord.Embed:
    """The `/tools list` embed."""
    return discord.Embed(
        title=replies.EXTERNAL_TOOLS(language),
        description=listing(statuses, language),
        colour=discord.Colour.blurple(),
    )


class ToggleSelect(discord.ui.Select["ToolsView"]):
    """Disable a plugin tool (it is no longer offered) or enable it again."""

    def __init__(
        self, extools: ExternalToolsRuntime, statuses: list[ToolStatus], language: Language
    ) -> None:
        plugins = [s for s in statuses if s.kind == "http"][:SELECT_LIMIT]
        super().__init__(
            placeholder=replies.CHOOSE_TOOL(language),
            options=[
                discord.SelectOption(
                    label=(replies.ENABLE_TOOL if s.disabled else replies.DISABLE_TOOL)(
                        language, name=s.name
                    )[:100],
                    value=s.name,
                    description=f"source {s.source}"[:100],
                )
                for s in plugins
            ],
        )
        self.extools = extools
        self.language = language
        self.disabled_now = {s.name: s.disabled for s in plugins}

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Flip the chosen tool and show the list again."""
        name = self.values[0]
        turn_off = not self.disabled_now.get(name, False)
        await self.extools.catalog.set_disabled(name, turn_off)
        statuses = await self.extools.statuses()
        said = replies.TOOL_TURNED_OFF if turn_off else replies.TOOL_TURNED_ON
        await interaction.response.edit_message(
            content=said(self.language, name=name),
            embed=listing_embed(statuses, self.language),
            view=ToolsView(self.extools, statuses, interaction.user.id, self.language),
        )


class ToolsView(discord.ui.View):
    """The ephemeral list's menu; only the admin who ran the command can use it."""

    def __init__(
        self,
        extools: ExternalToolsRuntime,
        statuses: list[ToolStatus],
        user_id: int,
        language: Language = "ja",
    ) -> None:
        super().__init__(timeout=300)
        self.user_id = user_id
        if any(s.kind == "http" for s in statuses):
            self.add_item(ToggleSelect(extools, statuses, language))

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        """Only the admin who opened the list."""
        return interaction.user.id == self.user_id


async def show_tools(
    interaction: discord.Interaction[Any], extools: ExternalToolsRuntime, permissions: Permissions
) -> None:
    """Answer `/tools list`: admins see the list; everyone else a private refusal."""
    language = language_of_locale(interaction.locale)
    if not permissions.is_server_admin(actor_of_interaction(interaction)):
        await interaction.response.send_message(replies.TOOLS_ADMINS_ONLY(language), ephemeral=True)
        return
    statuses = await extools.statuses()
    await interaction.response.send_message(
        embed=listing_embed(statuses, language),
        view=ToolsView(extools, statuses, interaction.user.id, language),
        ephemeral=True,
    )
