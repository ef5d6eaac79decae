"""Posting to a channel by id for scheduled jobs; failures come out as SendError."""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.discord_ui.sends import classify

log = logging.getLogger(__name__)


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
