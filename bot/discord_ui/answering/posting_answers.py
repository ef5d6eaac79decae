"""The Post publicly button under a private answer about a message: the asker (and only they)
posts the answer in the channel, attributed to them and linking to the message."""

from __future__ import annotations

import logging
import re
from typing import Any

import discord

from bot.discord_ui.answering.conversation import Staff, answers_in_channel
from bot.discord_ui.commands.private_replies import NO_MENTIONS, say
from bot.i18n import Language, language_of_locale, replies
from bot.text.clip import clip

log = logging.getLogger(__name__)

# An embed's description holds at most 4,096 characters; the answer lives there.
ANSWER_CHARS = 4096
ANSWER_COLOUR = discord.Colour.from_rgb(90, 140, 230)


def message_link(guild_id: int | None, channel_id: int, message_id: int) -> str:
    """A message's jump link."""
    guild = guild_id if guild_id is not None else "@me"
    return f"https://discord.com/channels/{guild}/{channel_id}/{message_id}"


def answer_embed(answer: str, title: str | None = None) -> discord.Embed:
    """The answer as an embed (longer than a message's 2,000 characters allow)."""
    return discord.Embed(title=title, description=clip(answer, ANSWER_CHARS), colour=ANSWER_COLOUR)


class PostPublicly(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"ask:pub:(?P<user>[0-9]{1,20}):(?P<message>[0-9]{1,20})",
):
    """Under a private answer: post it in the channel (persistent, so it works after a restart;
    the answer is read back from the message it is under)."""

    def __init__(self, user_id: int, message_id: int, language: Language = "ja") -> None:
        super().__init__(
            discord.ui.Button(
                label=replies.ASK_POST_PUBLICLY(language),
                style=discord.ButtonStyle.primary,
                custom_id=f"ask:pub:{user_id}:{message_id}",
            )
        )
        self.user_id = user_id
        self.message_id = message_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> PostPublicly:
        """The button a click's custom_id names."""
        return cls(int(match["user"]), int(match["message"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Post the answer in the channel; only the member who asked may."""
        language = language_of_locale(interaction.locale)
        if interaction.user.id != self.user_id:
            await say(interaction, replies.ASK_NOT_YOURS(language))
            return
        answer = _answer_of(interaction.message)
        if not answer:
            await say(interaction, replies.ASK_NOTHING_TO_POST(language))
            return
        staff: Staff | None = getattr(interaction.client, "staff", None)
        servers = staff.servers if staff is not None else None
        if interaction.guild_id is not None and not answers_in_channel(
            servers, interaction.guild_id, interaction.channel
        ):
            await say(interaction, replies.ACTION_NOT_HERE(language))
            return
        # Posts to a channel speak the server's language; the answer keeps the asker's.
        post_language = (
            servers.config(interaction.guild_id).language
            if servers is not None and interaction.guild_id is not None
            else language
        )
        link = message_link(interaction.guild_id, interaction.channel_id or 0, self.message_id)
        header = replies.ASK_POSTED_BY(post_language, asker=f"<@{self.user_id}>", link=link)
        # The button goes first (the acknowledgement, within 3 s), so it is pressed once.
        await interaction.response.edit_message(view=None)
        try:
            await interaction.followup.send(
                header, embed=answer_embed(answer), allowed_mentions=NO_MENTIONS, ephemeral=False
            )
        except discord.HTTPException as exc:
            log.info("Could not post an answer in %s: %s", interaction.channel_id, exc.status)
            await say(interaction, replies.ASK_CANNOT_POST(language))
            return
        await say(interaction, replies.ASK_POSTED(language))


def _answer_of(message: discord.Message | None) -> str:
    """The answer a private answer's message shows."""
    if message is None or not message.embeds:
        return ""
    return message.embeds[0].description or ""


def post_view(user_id: int, message_id: int, language: Language) -> discord.ui.View:
    """The private answer's one button."""
    view = discord.ui.View(timeout=None)
    view.add_item(PostPublicly(user_id, message_id, language))
    return view
