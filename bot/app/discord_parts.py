"""Each feature's Discord part (composition): its slash commands, buttons, message hooks, posts."""

from __future__ import annotations

import discord

from bot.app.services import Deps
from bot.chat import Tip
from bot.discord_ui.builder import DiscordBuilder
from bot.discord_ui.posting import ChannelPoster
from bot.servers.config import ServerConfig
from bot.servers.posts import TIPS, WEATHER, PostFor
from bot.weather import DailyWeatherJob, DailyWeatherReport, warn_if_half_configured


def weather(app: DiscordBuilder, deps: Deps) -> None:
    """Each server's daily forecast post (off until its channel and time are set)."""
    warn_if_half_configured(app.settings)

    def make(poster: ChannelPoster) -> PostFor:
        async def post(guild_id: int, config: ServerConfig) -> bool:
            channel = config.weather_channel
            if channel is None or not await poster.in_server(channel, guild_id):
                return False

            async def send(report: DailyWeatherReport) -> None:
                await poster.post_weather(channel, report)

            job = DailyWeatherJob(
                deps.weather, send, app.clock, config.weather_place, config.language
            )
            return await job.run() is not None

        return post

    app.add_server_post(WEATHER, make)


def chat(app: DiscordBuilder, deps: Deps) -> None:
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
                await poster.post_tip(channel, tip)

            tip = await deps.tips.post_tip(
                send,
                channel_id=channel,
                persona=config.persona,
                guild_id=guild_id,
                language=config.language,
            )
            return tip is not None

        return post

    app.add_server_post(TIPS, make)
