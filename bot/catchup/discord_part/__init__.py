"""/otomo catchup [since]: what the member missed here, privately, each point linked.

Only this channel's (or thread's) history is read, and only when the member may read it
(View Channel and Read Message History here); everyone else's words reach the model fenced;
the one model call has no tools and counts against the server's and the member's budgets.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.agent.llm.client import BudgetSpent, LLMClient, Payer
from bot.agent.llm.provider import LLMFailure
from bot.catchup import words
from bot.catchup.server_settings import CATCHUP_MAX_MESSAGES
from bot.catchup.summary import ANSWER_CHARS, Said, newest_within, request, with_links
from bot.discord_ui.builder import DiscordBuilder
from bot.discord_ui.client import OtomoBot
from bot.discord_ui.commands.private_replies import NO_MENTIONS, say
from bot.i18n import Language, language_of_locale, moment
from bot.members.preferences import UserPreferences
from bot.schedule.since import parse_since
from bot.schedule.times import UnreadableTime
from bot.servers.budgets import Budgets
from bot.servers.directory import ServerDirectory
from bot.text.clip import clip

log = logging.getLogger(__name__)


def may_read(permissions: discord.Permissions) -> bool:
    """Whether these permissions let one read a channel's past messages."""
    return permissions.view_channel and permissions.read_message_history


def said_of(message: discord.Message) -> Said | None:
    """A message as the catch-up reads it (None: nothing to read, such as a pin notice)."""
    text = message.content.strip()
    files = ", ".join(a.filename for a in message.attachments)
    if files:
        text = f"{text}\n(📎 {files})".strip()
    if not text and message.embeds:
        text = " ".join(filter(None, (e.title or e.description or "" for e in message.embeds)))
    if not text:
        return None
    return Said(
        author=message.author.display_name,
        text=text,
        url=message.jump_url,
        at=message.created_at,
        by_bot=message.author.bot,
    )


class CatchupCommand(commands.Cog):
    """/otomo catchup (added to the /otomo group when the cog loads)."""

    def __init__(
        self,
        client: OtomoBot,
        llm: LLMClient,
        servers: ServerDirectory,
        budgets: Budgets | None,
        preferences: UserPreferences,
    ) -> None:
        self._client = client
        self._llm = llm
        self._servers = servers
        self._budgets = budgets
        self._preferences = preferences

    async def cog_load(self) -> None:
        """Join the /otomo group that the core commands registered."""
        group = self._client.tree.get_command("otomo")
        if not isinstance(group, app_commands.Group):
            raise RuntimeError("/otomo catchup needs the core commands' /otomo group first")
        command: app_commands.Command[Any, ..., None] = app_commands.Command(
            name="catchup",
            description=words.CATCHUP_COMMAND.en,
            callback=self.catchup,
        )
        group.add_command(command)

    @app_commands.describe(since=words.SINCE_OPTION.en)
    async def catchup(
        self, interaction: discord.Interaction[Any], since: str | None = None
    ) -> None:
        """Summarise what you missed here since your last message (or since a time you give)."""
        language = language_of_locale(interaction.locale)
        channel = interaction.channel
        guild_id = interaction.guild_id
        if guild_id is None or not isinstance(channel, discord.abc.Messageable):
            await say(interaction, words.NO_SERVER(language))
            return
        if not may_read(interaction.permissions):
            await say(interaction, words.CANNOT_READ(language))
            return
        if not interaction.app_permissions.read_message_history:
            await say(interaction, words.BOT_CANNOT_READ(language))
            return
        tz = await self._preferences.timezone(interaction.user.id)
        now = discord.utils.utcnow()
        start: datetime | None = None
        if since and since.strip():
            try:
                start = parse_since(since, tz, now)
            except UnreadableTime:
                await say(interaction, words.BAD_SINCE(language, since=clip(since, 60)))
                return
        spent = (
            None
            if self._budgets is None
            else await self._budgets.spent(guild_id, interaction.user.id)
        )
        if spent is not None:
            await say(interaction, spent.sentence(language))
            return
        # Reading the history and the model's answer take longer than Discord's 3 seconds.
        await interaction.response.defer(ephemeral=True, thinking=True)
        cap = self._servers.config(guild_id).get(CATCHUP_MAX_MESSAGES)
        missed, last_own, capped = await self._missed(channel, interaction.user.id, start, cap)
        missed, cut = newest_within(missed)
        capped = capped or cut
        if not missed:
            when = (
                words.SINCE_WORDS(language, when=moment(start, "f"))
                if start is not None
                else words.SINCE_LAST_WORDS(language)
            )
            await say(interaction, words.NOTHING(language, since=when))
            return
        try:
            answer = await self._llm.complete(
                request(missed, language, tz),
                purpose="catchup",
                payer=Payer(guild_id, interaction.user.id),
            )
        except BudgetSpent as exc:
            await say(interaction, exc.spent.sentence(language))
            return
        except LLMFailure as exc:
            await say(interaction, words.FAILED(language, why=exc.in_language(language)))
            return
        if not answer.strip():
            await say(interaction, words.FAILED(language, why=words.EMPTY_ANSWER(language)))
            return
        await interaction.followup.send(
            embed=self._embed(missed, answer, start, last_own, capped, language),
            ephemeral=True,
            allowed_mentions=NO_MENTIONS,
        )

    async def _missed(
        self,
        channel: discord.abc.Messageable,
        member_id: int,
        start: datetime | None,
        cap: int,
    ) -> tuple[list[Said], datetime | None, bool]:
        """This channel's messages since start (or since the member's last message), newest
        `cap` at most, oldest first; the member's last message time; whether the cap cut."""
        found: list[Said] = []
        last_own: datetime | None = None
        read, capped = 0, False
        channel_id = getattr(channel, "id", None)
        async for message in channel.history(limit=cap):
            read += 1
            if start is not None and message.created_at <= start:
                break
            if start is None and message.author.id == member_id:
                last_own = message.created_at
                break
            # History is this channel's only; a message of another channel is never read.
            if message.channel.id != channel_id:
                continue
            said = said_of(message)
            if said is not None:
                found.append(said)
        else:
            capped = read >= cap
        found.reverse()
        return found, last_own, capped

    def _embed(
        self,
        missed: list[Said],
        answer: str,
        start: datetime | None,
        last_own: datetime | None,
        capped: bool,
        language: Language,
    ) -> discord.Embed:
        embed = discord.Embed(
            title=words.TITLE(language, count=len(missed)),
            description=clip(with_links(answer, missed), ANSWER_CHARS),
            color=discord.Color.blurple(),
        )
        if start is not None:
            footer = words.SINCE(language, when=moment(start, "f"))
        elif last_own is not None:
            footer = words.SINCE_YOUR_LAST(language, when=moment(last_own, "R"))
        else:
            footer = ""
        if capped:
            footer = f"{footer}\n{words.LATEST_ONLY(language, count=len(missed))}".strip()
        if footer:
            embed.add_field(name="\u200b", value=footer, inline=False)
        return embed


def register(app: DiscordBuilder, deps: object) -> None:
    """Add /otomo catchup."""
    agent = app.agent
    if agent is None:
        return
    app.add_commands(
        lambda client: CatchupCommand(client, agent.llm, app.servers, app.budgets, app.preferences)
    )
