"""The channels feature's Discord part: the listener that answers questions without a mention
in listening channels, and /otomo channel, where an admin sets the channel they run it in."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.channels import words
from bot.channels.feature import CHANNEL_PERSONA_MAX_CHARS, ChannelsDeps, ChannelVoices
from bot.channels.heuristic import looks_like_a_question
from bot.channels.server_settings import LISTEN_COOLDOWN, LISTENING_CHANNELS, listens_in
from bot.discord_ui.builder import DiscordBuilder
from bot.discord_ui.client import OtomoBot
from bot.discord_ui.commands.private_replies import NO_MENTIONS, say
from bot.discord_ui.members import actor_of_interaction
from bot.i18n import Language, language_of_locale, replies
from bot.members.permissions import Permissions
from bot.servers.directory import ServerDirectory
from bot.text.clip import clip

log = logging.getLogger(__name__)

PANEL_SECONDS = 600


class ChannelListener:
    """Hears questions to Otomo in the channels its server's admins made listening ones."""

    def __init__(self, servers: ServerDirectory, voices: ChannelVoices) -> None:
        self._servers = servers
        self._voices = voices

    def heard(self, message: discord.Message, me: discord.ClientUser) -> bool:
        """A question or request in a listening channel, not a reply or remark to someone else."""
        guild = message.guild
        if guild is None or message.author.bot or message.webhook_id is not None:
            return False
        if not listens_in(self._servers.config(guild.id), message.channel.id):
            return False
        resolved = message.reference.resolved if message.reference else None
        if message.reference is not None and not (
            isinstance(resolved, discord.Message) and resolved.author.id == me.id
        ):
            return False  # a reply to another member is their conversation
        if message.mention_everyone or message.role_mentions:
            return False
        if any(user.id != me.id for user in message.mentions):
            return False  # addressed to someone else
        names = (me.name, getattr(guild.me, "display_name", "") or me.name)
        return looks_like_a_question(message.content, names)

    async def take_turn(self, message: discord.Message) -> bool:
        """The channel's cool-down allows an answer now; the turn is taken for every process."""
        assert message.guild is not None
        seconds = self._servers.config(message.guild.id).get(LISTEN_COOLDOWN)
        return await self._voices.take_turn(
            message.guild.id, message.channel.id, timedelta(seconds=seconds)
        )


def panel(
    listening: bool,
    cooldown: int,
    persona: str,
    channel: str,
    language: Language,
    elsewhere: list[int] | None = None,
) -> discord.Embed:
    """The channel's settings as an admin reads them."""
    embed = discord.Embed(
        title=words.PANEL_TITLE(language, channel=channel),
        description=words.PANEL_HELP(language),
        color=discord.Color.blurple(),
    )
    embed.add_field(
        name=words.LISTENING(language),
        value=words.LISTENING_ON(language, seconds=cooldown)
        if listening
        else words.LISTENING_OFF(language),
        inline=False,
    )
    embed.add_field(
        name=words.PERSONA(language),
        value=clip(persona, 1000) if persona else words.NO_PERSONA(language),
        inline=False,
    )
    if elsewhere:
        embed.add_field(
            name=words.OTHER_PERSONAS(language),
            value=clip(" ".join(f"<#{c}>" for c in sorted(elsewhere)), 1000),
            inline=False,
        )
    return embed


class PersonaForm(discord.ui.Modal):
    """The channel's persona, typed (empty removes it)."""

    def __init__(self, owner: ChannelPanel, current: str, language: Language) -> None:
        super().__init__(title=clip(words.PERSONA(language), 45), timeout=PANEL_SECONDS)
        self.owner = owner
        self.text: discord.ui.TextInput[PersonaForm] = discord.ui.TextInput(
            label=clip(words.PERSONA(language), 45),
            default=current,
            required=False,
            style=discord.TextStyle.paragraph,
            max_length=CHANNEL_PERSONA_MAX_CHARS,
        )
        self.add_item(self.text)

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        """Store the persona and redraw the panel."""
        owner = self.owner
        await owner.voices.set_persona(
            owner.guild_id, owner.channel_id, self.text.value or "", interaction.user.id
        )
        log.info(
            "Server %s: persona of channel %s changed by %s",
            owner.guild_id,
            owner.channel_id,
            interaction.user.id,
        )
        await owner.redraw(interaction)


class ChannelPanel(discord.ui.View):
    """The private panel of one channel; only this server's admins can use it."""

    def __init__(
        self,
        servers: ServerDirectory,
        voices: ChannelVoices,
        permissions: Permissions,
        guild_id: int,
        channel_id: int,
        language: Language,
    ) -> None:
        super().__init__(timeout=PANEL_SECONDS)
        self.servers = servers
        self.voices = voices
        self.permissions = permissions
        self.guild_id = guild_id
        self.channel_id = channel_id
        listening = channel_id in servers.config(guild_id).get(LISTENING_CHANNELS)
        self.toggle.label = (words.STOP_LISTENING if listening else words.START_LISTENING)(language)
        self.toggle.style = (
            discord.ButtonStyle.secondary if listening else discord.ButtonStyle.success
        )
        self.persona.label = words.EDIT_PERSONA(language)

    async def embed(self, language: Language) -> discord.Embed:
        """The panel's embed as things stand."""
        config = self.servers.config(self.guild_id)
        personas = await self.voices.personas(self.guild_id)
        return panel(
            self.channel_id in config.get(LISTENING_CHANNELS),
            config.get(LISTEN_COOLDOWN),
            await self.voices.persona(self.guild_id, self.channel_id),
            f"<#{self.channel_id}>",
            language,
            elsewhere=[c for c in personas if c != self.channel_id],
        )

    async def redraw(self, interaction: discord.Interaction[Any]) -> None:
        """Show the panel again with what changed."""
        language = language_of_locale(interaction.locale)
        fresh = ChannelPanel(
            self.servers,
            self.voices,
            self.permissions,
            self.guild_id,
            self.channel_id,
            language,
        )
        await interaction.response.edit_message(embed=await fresh.embed(language), view=fresh)

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        """Still an admin of this server (rights may have changed since the panel opened)."""
        if self.permissions.is_server_admin(actor_of_interaction(interaction)):
            return True
        await say(interaction, replies.SETTINGS_REFUSAL(language_of_locale(interaction.locale)))
        return False

    @discord.ui.button(label="listen", style=discord.ButtonStyle.success)
    async def toggle(
        self, interaction: discord.Interaction[Any], _: discord.ui.Button[ChannelPanel]
    ) -> None:
        """Make this channel a listening one, or stop."""
        listening = {*self.servers.config(self.guild_id).get(LISTENING_CHANNELS)}
        listening.symmetric_difference_update({self.channel_id})
        await self.servers.change(
            self.guild_id, {"listening_channels": frozenset(listening)}, interaction.user.id
        )
        log.info(
            "Server %s: listening in channel %s %s by %s",
            self.guild_id,
            self.channel_id,
            "on" if self.channel_id in listening else "off",
            interaction.user.id,
        )
        await self.redraw(interaction)

    @discord.ui.button(label="persona", style=discord.ButtonStyle.primary)
    async def persona(
        self, interaction: discord.Interaction[Any], _: discord.ui.Button[ChannelPanel]
    ) -> None:
        """Open the persona form."""
        language = language_of_locale(interaction.locale)
        current = await self.voices.persona(self.guild_id, self.channel_id)
        await interaction.response.send_modal(PersonaForm(self, current, language))


class ChannelCommand(commands.Cog):
    """/otomo channel (added to the /otomo group when the cog loads)."""

    def __init__(
        self,
        client: OtomoBot,
        servers: ServerDirectory,
        voices: ChannelVoices,
        permissions: Permissions,
    ) -> None:
        self._client = client
        self._servers = servers
        self._voices = voices
        self._permissions = permissions

    async def cog_load(self) -> None:
        """Join the /otomo group that the core commands registered."""
        group = self._client.tree.get_command("otomo")
        if not isinstance(group, app_commands.Group):
            raise RuntimeError("/otomo channel needs the core commands' /otomo group first")
        command: app_commands.Command[Any, ..., None] = app_commands.Command(
            name="channel",
            description=words.CHANNEL_COMMAND.en,
            callback=self.channel,
        )
        group.add_command(command)

    async def channel(self, interaction: discord.Interaction[Any]) -> None:
        """This channel's settings: answer without a mention, and its own persona (admins)."""
        language = language_of_locale(interaction.locale)
        if interaction.guild_id is None or interaction.channel_id is None:
            await say(interaction, replies.SETTINGS_NO_SERVER(language))
            return
        if not self._permissions.is_server_admin(actor_of_interaction(interaction)):
            await say(interaction, replies.SETTINGS_REFUSAL(language))
            return
        view = ChannelPanel(
            self._servers,
            self._voices,
            self._permissions,
            interaction.guild_id,
            interaction.channel_id,
            language,
        )
        await interaction.response.send_message(
            embed=await view.embed(language),
            view=view,
            ephemeral=True,
            allowed_mentions=NO_MENTIONS,
        )


def register(app: DiscordBuilder, deps: ChannelsDeps) -> None:
    """Listen in the channels admins chose; add /otomo channel; forget a departed server's."""
    voices = deps.channels
    app.listen_with(ChannelListener(app.servers, voices))
    app.add_commands(lambda client: ChannelCommand(client, app.servers, voices, app.permissions))
    if app.membership is not None:
        app.membership.also_forget(voices.forget_server)
