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
from bot.i18n import Language, language_of_locale, replies
from bot.members.permissions import Permissions
from bot.servers.config import GROUPS, PERSONA_MAX_CHARS, SETTINGS, BadValue, ServerConfig
from bot.servers.directory import ServerDirectory
from bot.text.clip import clip

if TYPE_CHECKING:
    from bot.discord_ui.client import OtomoBot

log = logging.getLogger(__name__)

PANEL_SECONDS = 600
# A value longer than this is clipped in the panel (the persona), so the embed stays small.
SHOWN_CHARS = 80


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


def panel(config: ServerConfig, language: Language) -> discord.Embed:
    """Every setting's effective value and its source, grouped, in the admin's language."""
    embed = discord.Embed(
        title=replies.SETTINGS_TITLE(language),
        description=replies.SETTINGS_LEGEND(language),
        color=discord.Color.blurple(),
    )
    for group, title in GROUPS.items():
        lines = []
        for setting in SETTINGS.values():
            if setting.group != group:
                continue
            source = "🏠" if setting.name in config.overridden else "🌐"
            shown = clip(setting.show(config.value(setting.name)), SHOWN_CHARS)
            lines.append(f"{source} {setting.label(language)}: {shown}")
        embed.add_field(name=title(language), value=clip("\n".join(lines), 1024), inline=False)
    return embed


# Discord's most options in one select: the settings are split over several, by group.
OPTIONS_PER_SELECT = 25


def select_pages(names: list[str]) -> list[list[str]]:
    """Settings split into selects of at most 25 options, whole groups together where they fit
    (a View holds five rows: two selects to change, two to reset, room to spare)."""
    pages: list[list[str]] = [[]]
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(SETTINGS[name].group, []).append(name)
    for members in groups.values():
        for name in members:
            if len(pages[-1]) == OPTIONS_PER_SELECT or (
                name == members[0] and len(pages[-1]) + len(members) > OPTIONS_PER_SELECT
            ):
                pages.append([])
            pages[-1].append(name)
    return [page for page in pages if page]


def _page_title(page: list[str], language: Language) -> str:
    groups = dict.fromkeys(SETTINGS[n].group for n in page)
    return clip(
        replies.SETTINGS_CHANGE_SOME(
            language, groups=", ".join(GROUPS[g](language) for g in groups)
        ),
        150,
    )


def _check_belongs(name: str, value: Any, guild: discord.Guild | None) -> None:
    """Channels and roles must be this server's own: a server never points Otomo elsewhere."""
    kind = SETTINGS[name].kind
    if guild is None or kind == "value":
        return
    ids = value if isinstance(value, frozenset) else {value} if value else set()
    if kind == "channels":
        foreign = [i for i in ids if guild.get_channel_or_thread(i) is None]
        what = replies.NOT_OUR_CHANNEL
    else:
        foreign = [i for i in ids if guild.get_role(i) is None]
        what = replies.NOT_OUR_ROLE
    if foreign:
        raise BadValue(what, ids=", ".join(str(i) for i in sorted(foreign)))


class SettingForm(discord.ui.Modal):
    """One setting's value, typed; a bad value is said and nothing is changed."""

    def __init__(
        self, servers: ServerDirectory, guild_id: int, name: str, language: Language
    ) -> None:
        setting = SETTINGS[name]
        super().__init__(title=clip(setting.label(language), 45), timeout=PANEL_SECONDS)
        self.servers = servers
        self.guild_id = guild_id
        self.name = name
        current = as_typed(name, servers.config(guild_id).value(name))
        self.value: discord.ui.TextInput[SettingForm] = discord.ui.TextInput(
            label=clip(setting.label(language), 45),
            default=current[:PERSONA_MAX_CHARS],
            required=False,
            style=discord.TextStyle.paragraph if name == "persona" else discord.TextStyle.short,
            max_length=PERSONA_MAX_CHARS if name == "persona" else 1000,
        )
        self.add_item(self.value)

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        """Store the value and redraw the panel, or say what was wrong with it."""
        language = language_of_locale(interaction.locale)
        try:
            value = SETTINGS[self.name].parse(self.value.value or "")
            _check_belongs(self.name, value, interaction.guild)
        except BadValue as exc:
            await say(interaction, replies.SETTINGS_UNCHANGED(language, why=exc.said(language)))
            return
        config = await self.servers.change(self.guild_id, {self.name: value}, interaction.user.id)
        log.info("Server %s: %s changed by %s", self.guild_id, self.name, interaction.user.id)
        await interaction.response.edit_message(embed=panel(config, language))


class ChangeSelect(discord.ui.Select["SettingsPanel"]):
    """Pick a setting to change: opens its form."""

    def __init__(
        self, servers: ServerDirectory, guild_id: int, language: Language, names: list[str]
    ) -> None:
        super().__init__(
            placeholder=_page_title(names, language),
            options=[
                discord.SelectOption(label=clip(SETTINGS[n].label(language), 100), value=n)
                for n in names
            ],
        )
        self.servers = servers
        self.guild_id = guild_id

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Open the chosen setting's form."""
        language = language_of_locale(interaction.locale)
        await interaction.response.send_modal(
            SettingForm(self.servers, self.guild_id, self.values[0], language)
        )


class ResetSelect(discord.ui.Select["SettingsPanel"]):
    """Pick settings to return to the bot's defaults."""

    def __init__(
        self,
        servers: ServerDirectory,
        guild_id: int,
        names: list[str],
        permissions: Permissions,
        language: Language,
    ) -> None:
        super().__init__(
            placeholder=replies.SETTINGS_RESET(language),
            min_values=1,
            max_values=len(names),
            options=[
                discord.SelectOption(label=clip(SETTINGS[n].label(language), 100), value=n)
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
        language = language_of_locale(interaction.locale)
        await interaction.response.edit_message(
            embed=panel(config, language),
            view=SettingsPanel(self.servers, self.guild_id, self.permissions, language),
        )


class SettingsPanel(discord.ui.View):
    """The private panel; only this server's admins can use it."""

    def __init__(
        self,
        servers: ServerDirectory,
        guild_id: int,
        permissions: Permissions,
        language: Language,
    ) -> None:
        super().__init__(timeout=PANEL_SECONDS)
        self.permissions = permissions
        for page in select_pages(list(SETTINGS)):
            self.add_item(ChangeSelect(servers, guild_id, language, page))
        overridden = [n for n in SETTINGS if n in servers.config(guild_id).overridden]
        for page in select_pages(overridden):
            self.add_item(ResetSelect(servers, guild_id, page, permissions, language))

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        """Still an admin of this server (rights may have changed since the panel opened)."""
        if self.permissions.is_server_admin(actor_of_interaction(interaction)):
            return True
        await say(interaction, replies.SETTINGS_REFUSAL(language_of_locale(interaction.locale)))
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
        language = language_of_locale(interaction.locale)
        if interaction.guild_id is None:
            await say(interaction, replies.SETTINGS_NO_SERVER(language))
            return
        if not self.permissions.is_server_admin(actor_of_interaction(interaction)):
            await say(interaction, replies.SETTINGS_REFUSAL(language))
            return
        await interaction.response.send_message(
            embed=panel(self.servers.config(interaction.guild_id), language),
            view=SettingsPanel(self.servers, interaction.guild_id, self.permissions, language),
            ephemeral=True,
            allowed_mentions=NO_MENTIONS,
        )
