"""Posting to a channel by id for scheduled jobs; failures come out as SendError."""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.chat import Tip
from bot.discord_ui.sends import classify
from bot.i18n import posts
from bot.text.clip import clip
from bot.weather import DailyWeatherReport

log = logging.getLogger(__name__)

WEATHER_COLOUR = discord.Colour.from_rgb(86, 156, 214)
# Discord's embed limits are 256 (title), 4,096 (description), 1,024 (field value), 2,048
# (footer) and 6,000 in all; these stay within each and, summed, well below the total.
TITLE_MAX = 256
DESCRIPTION_MAX = 2048
FIELD_VALUE_MAX = 1024
FOOTER_MAX = 256
CONTENT_MAX = 2000


class ChannelPoster:
    """Sends messages for jobs (no user is waiting); failures become retryable/permanent."""

    def __init__(self, client: discord.Client) -> None:
        self.client = client

    async def send(self, channel_id: int, **kwargs: Any) -> discord.Message:
        """Send to channel_id, pinging nobody unless allowed_mentions says otherwise."""
        kwargs.setdefault("allowed_mentions", discord.AllowedMentions.none())
        channel = self.client.get_partial_messageable(channel_id)
        try:
            return await channel.send(**kwargs)
        except Exception as exc:
            failure = classify(exc)
            if failure is None:
                raise
            raise type(failure)(
                f"channel {channel_id}: {failure.reason}", failure.retry_after
            ) from exc

    async def in_server(self, channel_id: int, guild_id: int) -> bool:
        """Whether a channel belongs to this server (the bot's default channel belongs to one
        server only, and no server posts into another's)."""
        channel = self.client.get_channel(channel_id)
        if channel is None:
            try:
                channel = await self.client.fetch_channel(channel_id)
            except discord.HTTPException:
                return False
        guild = getattr(channel, "guild", None)
        return guild is not None and guild.id == guild_id

    async def post_weather(self, channel_id: int, report: DailyWeatherReport) -> None:
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
        await self.send(channel_id, embed=embed)

    async def post_tip(self, channel_id: int, tip: Tip) -> None:
        """A tip as plain text."""
        await self.send(channel_id, content=clip(tip.as_text(), CONTENT_MAX))
