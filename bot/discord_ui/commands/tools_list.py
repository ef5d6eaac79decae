"""`/tools list` for admins: every tool from outside with its source, scope and health."""

from __future__ import annotations

from typing import Any

import discord

from bot.discord_ui.members import actor_of_interaction
from bot.extools import ExternalToolsRuntime, ToolStatus
from bot.members.permissions import Permissions
from bot.text.clip import clip

# Discord allows 25 options in a select menu and 4,096 characters in an embed description.
SELECT_LIMIT = 25
DESCRIPTION_LIMIT = 4000


def health_text(status: ToolStatus) -> str:
    """The health column: on, off by an admin, or unavailable and why."""
    if status.disabled:
        return "⛔ 無効 / disabled by an admin"
    if status.available:
        return "✅ 利用可 / available"
    return f"⚠️ 利用不可 / unavailable — {status.detail or 'not answering'}"


def scope_text(status: ToolStatus) -> str:
    """Which handlers and which server may use the tool."""
    handlers = ", ".join(status.handlers) if status.handlers else "all handlers"
    guild = "all servers" if status.guild_id is None else f"server {status.guild_id}"
    return f"{handlers}; {guild}"


def listing(statuses: list[ToolStatus]) -> str:
    """The embed text, one block per tool."""
    if not statuses:
        return (
            "外部ツールはありません。/ No external tools: plugins register over the tools API "
            "(TOOLS_API_PORT) and MCP servers come from MCP_SERVERS_FILE."
        )
    blocks = [
        f"**`{s.name}`** ({s.kind}) — source `{s.source}`\nscope: {scope_text(s)}\n{health_text(s)}"
        for s in statuses
    ]
    text = "\n\n".join(blocks)
    return clip(text, DESCRIPTION_LIMIT)


def listing_embed(statuses: list[ToolStatus]) -> discord.Embed:
    """The `/tools list` embed."""
    return discord.Embed(
        title="🧩 外部ツール / External tools",
        description=listing(statuses),
        colour=discord.Colour.blurple(),
    )


class ToggleSelect(discord.ui.Select["ToolsView"]):
    """Disable a plugin tool (it is no longer offered) or enable it again."""

    def __init__(self, extools: ExternalToolsRuntime, statuses: list[ToolStatus]) -> None:
        plugins = [s for s in statuses if s.kind == "http"][:SELECT_LIMIT]
        super().__init__(
            placeholder="無効化 / 有効化するツール / Disable or enable a tool",
            options=[
                discord.SelectOption(
                    label=f"{'Enable' if s.disabled else 'Disable'} {s.name}"[:100],
                    value=s.name,
                    description=f"source {s.source}"[:100],
                )
                for s in plugins
            ],
        )
        self.extools = extools
        self.disabled_now = {s.name: s.disabled for s in plugins}

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Flip the chosen tool and show the list again."""
        name = self.values[0]
        turn_off = not self.disabled_now.get(name, False)
        await self.extools.catalog.set_disabled(name, turn_off)
        statuses = await self.extools.statuses()
        verb = "無効にしました / disabled" if turn_off else "有効にしました / enabled"
        await interaction.response.edit_message(
            content=f"`{name}` を{verb}.",
            embed=listing_embed(statuses),
            view=ToolsView(self.extools, statuses, interaction.user.id),
        )


class ToolsView(discord.ui.View):
    """The ephemeral list's menu; only the admin who ran the command can use it."""

    def __init__(
        self, extools: ExternalToolsRuntime, statuses: list[ToolStatus], user_id: int
    ) -> None:
        super().__init__(timeout=300)
        self.user_id = user_id
        if any(s.kind == "http" for s in statuses):
            self.add_item(ToggleSelect(extools, statuses))

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        """Only the admin who opened the list."""
        return interaction.user.id == self.user_id


async def show_tools(
    interaction: discord.Interaction[Any], extools: ExternalToolsRuntime, permissions: Permissions
) -> None:
    """Answer `/tools list`: admins see the list; everyone else a private refusal."""
    if not permissions.is_server_admin(actor_of_interaction(interaction)):
        await interaction.response.send_message(
            "外部ツールの一覧は管理者（サーバー管理権限）だけが見られます。/ Only admins "
            "(Manage Server) can list external tools.",
            ephemeral=True,
        )
        return
    statuses = await extools.statuses()
    await interaction.response.send_message(
        embed=listing_embed(statuses),
        view=ToolsView(extools, statuses, interaction.user.id),
        ephemeral=True,
    )
