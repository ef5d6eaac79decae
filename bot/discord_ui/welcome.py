"""Joining and leaving a server: one short bilingual welcome, and the departure recorded."""

from __future__ import annotations

import logging

import discord

from bot.servers.membership import Membership

log = logging.getLogger(__name__)

WELCOME = (
    "👋 こんにちは、Otomo（おとも）です。メンションして話しかけてください。\n"
    "管理者の方は `/otomo settings` で答えるチャンネル・言語・ロール・予算などを設定できます。"
    "できることは `/otomo help` で。\n"
    "Hi, I'm Otomo! Mention me to talk. Admins: `/otomo settings` sets where I answer, the "
    "language, roles and budgets; `/otomo help` shows what I can do."
)


def welcome_channel(guild: discord.Guild) -> discord.TextChannel | None:
    """The system channel if the bot may write there, else the first text channel it may."""
    me = guild.me
    candidates = [guild.system_channel] if guild.system_channel else []
    candidates += sorted(guild.text_channels, key=lambda c: (c.position, c.id))
    for channel in candidates:
        if channel is not None and (me is None or channel.permissions_for(me).send_messages):
            return channel
    return None


class Arrivals:
    """What the client does when it joins or leaves a server."""

    def __init__(self, membership: Membership) -> None:
        self.membership = membership

    async def joined(self, guild: discord.Guild) -> None:
        """Record the server; the first time, post the welcome where the bot may write."""
        log.info("Joined server %s (%s)", guild.id, guild.name)
        if not await self.membership.joined(guild.id):
            return
        channel = welcome_channel(guild)
        if channel is None:
            log.info("No channel of server %s takes the bot's messages: no welcome", guild.id)
            return
        try:
            await channel.send(WELCOME, allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as exc:
            log.warning("Could not welcome server %s: %s %s", guild.id, exc.status, exc.text)
            return
        await self.membership.welcomed(guild.id)

    async def left(self, guild: discord.Guild) -> None:
        """Record the departure (the data stays for SERVER_DATA_RETENTION_DAYS)."""
        await self.membership.left(guild.id)

    async def present(self, guilds: list[discord.Guild]) -> None:
        """The servers seen at start are known, and back if they had been left."""
        await self.membership.present(g.id for g in guilds)
