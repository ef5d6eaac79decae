"""The weather feature's Discord part: each server's daily forecast post, as an embed."""

from __future__ import annotations

import discord

from bot.discord_ui.builder import DiscordBuilder
from bot.discord_ui.posting import ChannelPoster
from bot.i18n import posts
from bot.servers.config import ServerConfig
from bot.servers.posts import PostFor
from bot.text.clip import clip
from bot.weather import DailyWeatherJob, DailyWeatherReport, warn_if_half_configured
from bot.weather.due import DAILY_WEATHER
from bot.weather.tools import WeatherDeps

WEATHER_COLOUR = discord.Colour.from_rgb(86, 156, 214)
# Discord's embed limits are 256 (title), 4,096 (description), 1,024 (field value), 2,048
# (footer) and 6,000 in all; these stay within each and, summed, well below the total.
TITLE_MAX = 256
DESCRIPTION_MAX = 2048
FIELD_VALUE_MAX = 1024
FOOTER_MAX = 256


async def post_weather(poster: ChannelPoster, channel_id: int, report: DailyWeatherReport) -> None:
    """The daily forecast as an embed."""
    embed = discord.Embed(
        title=clip(f"{report.emoji} {report.title}", TITLE_MAX),
        description=clip("\n".join(report.lines), DESCRIPTION_MAX),
        colour=WEATHER_COLOUR,
    )
    # The advice already reads "洗濯指数 72: 外干しOK"; repeating the index would be noise.
    embed.add_field(
        name=posts.LAUNDRY(report.language),
        value=clip(report.laundry_advice, FIELD_VALUE_MAX),
        inline=False,
    )
    embed.add_field(
        name=posts.UMBRELLA(report.language),
        value=clip(report.umbrella_advice, FIELD_VALUE_MAX),
        inline=False,
    )
    embed.set_footer(text=clip(f"{report.place} · Open-Meteo", FOOTER_MAX))
    await poster.send(channel_id, embed=embed)


def register(app: DiscordBuilder, deps: WeatherDeps) -> None:
    """Each server's daily forecast post (off until its channel and time are set)."""
    warn_if_half_configured(app.settings)

    def make(poster: ChannelPoster) -> PostFor:
        async def post(guild_id: int, config: ServerConfig) -> bool:
            channel = config.weather_channel
            if channel is None or not await poster.in_server(channel, guild_id):
                return False

            async def send(report: DailyWeatherReport) -> None:
                await post_weather(poster, channel, report)

            job = DailyWeatherJob(
                deps.weather, send, app.clock, config.weather_place, config.language
            )
            return await job.run() is not None

        return post

    app.add_server_post(DAILY_WEATHER, make)
