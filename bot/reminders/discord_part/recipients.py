"""Finding the member or channel a reminder names, and whether the asker may post there."""

from __future__ import annotations

import logging
import re

import discord

from bot.reminders.recipients import Channel, Member

log = logging.getLogger(__name__)

# A name typed after @ matches a few members at most; more would be a guess.
NAME_MATCHES = 5


def _snowflake(text: str, sigil: str) -> int | None:
    found = re.fullmatch(rf"<{sigil}!?(\d{{15,21}})>|(\d{{15,21}})", text.strip())
    return None if found is None else int(found[1] or found[2])


class DiscordRecipients:
    """Implements RecipientFinder from the client's cache (members come with the guild, since
    the bot asks for the members intent), asking Discord for what the cache lacks."""

    def __init__(self, client: discord.Client) -> None:
        self.client = client

    async def _member(self, guild: discord.Guild, user_id: int) -> discord.Member | None:
        member = guild.get_member(user_id)
        if member is not None:
            return member
        try:
            return await guild.fetch_member(user_id)
        except discord.HTTPException:
            return None

    async def member(self, guild_id: int, text: str) -> Member | None:
        """The member text names: a mention, an id, or a user, global or server name."""
        guild = self.client.get_guild(guild_id)
        if guild is None:
            return None
        user_id = _snowflake(text, "@")
        found: discord.Member | None
        if user_id is not None:
            found = await self._member(guild, user_id)
        else:
            name = text.strip().lstrip("@").strip()
            found = guild.get_member_named(name) if name else None
            if found is None and name:
                try:
                    matches = await guild.query_members(query=name, limit=NAME_MATCHES)
                except (discord.HTTPException, TimeoutError, discord.ClientException):
                    matches = []
                found = matches[0] if len(matches) == 1 else None
        if found is None:
            return None
        return Member(found.id, found.display_name, bot=found.bot)

    async def channel(self, guild_id: int, user_id: int, text: str) -> Channel | None:
        """The channel text names (a mention, an id or a name) and whether the member may
        send messages there (their roles and the channel's overwrites)."""
        guild = self.client.get_guild(guild_id)
        if guild is None:
            return None
        channel_id = _snowflake(text, "#")
        place: discord.abc.GuildChannel | discord.Thread | None
        if channel_id is not None:
            place = guild.get_channel_or_thread(channel_id)
        else:
            name = text.strip().lstrip("#").strip()
            place = discord.utils.get(guild.text_channels, name=name)
        if place is None or not isinstance(place, discord.abc.Messageable):
            return None
        member = await self._member(guild, user_id)
        if member is None:
            return Channel(place.id, asker_may_post=False)
        allowed = place.permissions_for(member)
        may_post = (
            allowed.send_messages_in_threads
            if isinstance(place, discord.Thread)
            else allowed.send_messages
        )
        return Channel(place.id, asker_may_post=allowed.view_channel and may_post)
