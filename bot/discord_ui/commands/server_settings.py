"""/otomo settings: a server's admins see and change its settings in a private panel.

The panel lists every setting's effective value and where it comes from (this server, or the
bot's default); a select opens a form for one setting, another returns settings to their
defaults. Everything goes through the server directory, which every process refreshes.
"""

from __future__ import annotations

import logging
from datetime import time
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord_ui.commands.private_replies import NO_MENTIONS, say
from bot.discord_ui.members import actor_of_interaction
from bot.members.permissions import Permissions
from bot.servers.config import PERSONA_MAX_CHARS, SETTINGS, BadValue, ServerConfig
from bot.servers.directory import ServerDirectory
from bot.text.clip import clip

if TYPE_CHECKING:
    from bot.discord_ui.client import OtomoBot

log = logging.getLogger(__name__)

PANEL_SECONDS = 600
# A value longer than this is clipped in the panel (the persona), so the embed stays small.
SHOWN_CHARS = 80

REFUSAL = (
    "サーバーの設定を変えられるのは「サーバー管理」権限を持つ管理者だけです。/ Only members with "
    "Manage Server (or Administrator) can change this server's settings."
)
NO_SERVER = (
    "設定はサーバーごとです。サーバーのチャンネルで使ってください。/ Settings are per server: "
    "use /otomo settings in one of its channels."
)
GROUPS = {
    "answering": "💬 応答 / Answering",
    "roles": "🔐 ロール / Roles",
    "tools": "🧰 ツール / Tools",
    "weather": "☀️ 毎日の天気 / Daily weather",
    "tips": "💡 Tips・話題 / Tips and topics",
    "budgets": "🪙 予算 / Budgets",
}


def as_typed(name: str, value: Any) -> str:
    """A value as an admin would type it into the form (the form starts from it)."""
    if isinstance(value, frozenset):
        return " ".join(str(v) for v in sorted(value))
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, time):
        return value.strftime("%H:%M")
    if isinstance(value, tuple):
        return f"{value[0]}-{value[1]}"
    return "" if value is None else str(value)


def panel(config: ServerConfig) -> discord.Embed:
    """Every setting's effective value and its source, grouped."""
    embed = discord.Embed(
        title="⚙️ このサーバーの設定 / This server's settings",
        description="🏠 = このサーバーで設定 / set here · 🌐 = ボットの既定 / the bot's default",
        color=discord.Color.blurple(),
    )
    for group, title in GROUPS.items():
        lines = []
        for setting in SETTINGS.values():
            if setting.group != group:
                continue
            source = "🏠" if setting.name in config.overridden else "🌐"
            shown = clip(setting.show(getattr(config, setting.name)), SHOWN_CHARS)
            lines.append(f"{source} {setting.ja} / {setting.en}: {shown}")
        embed.add_field(name=title, value=clip("\n".join(lines), 1024), inline=False)
    return embed


CHANNEL_SETTINGS = frozenset(
    {"answer_channels", "weather_channel", "tips_channel", "word_pool_channels"}
)
ROLE_SETTINGS = frozenset({"approver_roles", "editor_roles"})


def _check_belongs(name: str, value: Any, guild: discord.Guild | None) -> None:
    """Channels and roles must be this server's own: a server never points Otomo elsewhere."""
    if guild is None or (name not in CHANNEL_SETTINGS and name not in ROLE_SETTINGS):
        return
    ids = value if isinstance(value, frozenset) else {value} if value else set()
    if name in CHANNEL_SETTINGS:
        foreign = [i for i in ids if guild.get_channel_or_thread(i) is None]
        what = "このサーバーのチャンネルではありません / not a channel of this server"
    else:
        foreign = [i for i in ids if guild.get_role(i) is None]
        what = "このサーバーのロールではありません / not a role of this server"
    if foreign:
        raise BadValue(f"{', '.join(str(i) for i in sorted(foreign))}: {what}.")


class SettingForm(discord.ui.Modal):
    """One setting's value, typed; a bad value is said and nothing is changed."""

    def __init__(self, servers: ServerDirectory, guild_id: int, name: str) -> None:
        setting = SETTINGS[name]
        super().__init__(title=clip(f"{setting.ja} / {setting.en}", 45), timeout=PANEL_SECONDS)
        self.servers = servers
        self.guild_id = guild_id
        self.name = name
        current = as_typed(name, getattr(servers.config(guild_id), name))
        self.value: discord.ui.TextInput[SettingForm] = discord.ui.TextInput(
            label=clip(setting.en, 45),
            default=current[:PERSONA_MAX_CHARS],
            required=False,
            style=discord.TextStyle.paragraph if name == "persona" else discord.TextStyle.short,
            max_length=PERSONA_MAX_CHARS if name == "persona" else 1000,
        )
        self.add_item(self.value)

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        """Store the value and redraw the panel, or say what was wrong with it."""
        try:
            value = SETTINGS[self.name].parse(self.value.value or "")
            _check_belongs(self.name, value, interaction.guild)
        except BadValue as exc:
            await say(interaction, f"⚠️ {exc}\n変更していません。/ Nothing was changed.")
            return
        config = await self.servers.change(self.guild_id, {self.name: value}, interaction.user.id)
        log.info("Server %s: %s changed by %s", self.guild_id, self.name, interaction.user.id)
        await interaction.response.edit_message(embed=panel(config))


class ChangeSelect(discord.ui.Select["SettingsPanel"]):
    """Pick a setting to change: opens its form."""

    def __init__(self, servers: ServerDirectory, guild_id: int) -> None:
        super().__init__(
            placeholder="変更する設定 / Change a setting",
            options=[
                discord.SelectOption(label=clip(f"{s.ja} / {s.en}", 100), value=s.name)
                for s in SETTINGS.values()
            ],
        )
        self.servers = servers
        self.guild_id = guild_id

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Open the chosen setting's form."""
        await interaction.response.send_modal(
            SettingForm(self.servers, self.guild_id, self.values[0])
        )


class ResetSelect(discord.ui.Select["SettingsPanel"]):
    """Pick settings to return to the bot's defaults."""

    def __init__(
        self, servers: ServerDirectory, guild_id: int, names: list[str], permissions: Permissions
    ) -> None:
        super().__init__(
            placeholder="既定に戻す / Reset to the default",
            min_values=1,
            max_values=len(names),
            options=[
                discord.SelectOption(
                    label=clip(f"{SETTINGS[n].ja} / {SETTINGS[n].en}", 100), value=n
                )
                for n in names
            ],
        )
        self.servers = servers
        self.guild_id = guild_id
        self.permissions = permissions

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Reset and redraw the panel."""
        config = await self.servers.change(
            self.guild_id, dict.fromkeys(self.values), interaction.user.id, reset=True
        )
        await interaction.response.edit_message(
            embed=panel(config), view=SettingsPanel(self.servers, self.guild_id, self.permissions)
        )


class SettingsPanel(discord.ui.View):
    """The private panel; only this server's admins can use it."""

    def __init__(self, servers: ServerDirectory, guild_id: int, permissions: Permissions) -> None:
        super().__init__(timeout=PANEL_SECONDS)
        self.permissions = permissions
        self.add_item(ChangeSelect(servers, guild_id))
        overridden = sorted(servers.config(guild_id).overridden)
        if overridden:
            self.add_item(ResetSelect(servers, guild_id, overridden, permissions))

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        """Still an admin of this server (rights may have changed since the panel opened)."""
        if self.permissions.is_server_admin(actor_of_interaction(interaction)):
            return True
        await say(interaction, REFUSAL)
        return False


class ServerSettingsCommands(commands.Cog):
    """/otomo settings (added to the /otomo group when the cog loads)."""

    def __init__(self, bot: OtomoBot, servers: ServerDirectory, permissions: Permissions) -> None:
        self.bot = bot
        self.servers = servers
        self.permissions = permissions

    async def cog_load(self) -> None:
        """Join the /otomo group that the core commands registered."""
        group = self.bot.tree.get_command("otomo")
        if not isinstance(group, app_commands.Group):
            raise RuntimeError("/otomo settings needs the core commands' /otomo group first")
        command: app_commands.Command[Any, ..., None] = app_commands.Command(
            name="settings",
            description="This server's settings (admins)",
            callback=self.settings,
        )
        group.add_command(command)

    async def settings(self, interaction: discord.Interaction[Any]) -> None:
        """Show this server's settings, with menus to change them (admins)."""
        if interaction.guild_id is None:
            await say(interaction, NO_SERVER)
            return
        if not self.permissions.is_server_admin(actor_of_interaction(interaction)):
            await say(interaction, REFUSAL)
            return
        await interaction.response.send_message(
            embed=panel(self.servers.config(interaction.guild_id)),
            view=SettingsPanel(self.servers, interaction.guild_id, self.permissions),
            ephemeral=True,
            allowed_mentions=NO_MENTIONS,
        )
