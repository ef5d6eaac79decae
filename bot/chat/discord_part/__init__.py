"""The chat feature's Discord part: server messages feed the word pool, and each server's
どうでもいいTips post."""

from __future__ import annotations

import discord

from bot.chat import Tip
from bot.chat.tips_due import TIPS_POST
from bot.chat.tools import ChatDeps
from bot.discord_ui.builder import DiscordBuilder
from bot.discord_ui.posting import ChannelPoster
from bot.servers.config import ServerConfig
from bot.servers.posts import PostFor
from bot.text.clip import clip

CONTENT_MAX = 2000


async def post_tip(poster: ChannelPoster, channel_id: int, tip: Tip) -> None:
    """A tip as plain text."""
    await poster.send(channel_id, content=clip(tip.as_text(), CONTENT_MAX))


def register(app: DiscordBuilder, deps: ChatDeps) -> None:
    """Server messages feed the word pool; each server's どうでもいいTips post when it is on."""

    def observe(message: discord.Message) -> None:
        # Only people in guild channels feed the word pool: DMs stay private.
        if message.guild is not None and not message.author.bot and message.content:
            deps.word_pool.feed(message.content, message.channel.id, message.guild.id)

    app.add_message_hook(observe)

    def make(poster: ChannelPoster) -> PostFor:
        async def post(guild_id: int, config: ServerConfig) -> bool:
            channel = config.tips_channel
            if channel is None or not await poster.in_server(channel, guild_id):
                return False

            async def send(tip: Tip) -> None:
                await post_tip(poster, channel, tip)

            tip = await deps.tips.post_tip(
                send,
                channel_id=channel,
                persona=config.persona,
                guild_id=guild_id,
                language=config.language,
            )
            return tip is not None

        return post

    app.add_server_post(TIPS_POST, make)
