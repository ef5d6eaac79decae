"""Conversations in threads the bot opened: members talk there without mentioning it.

A thread is the bot's when it opened it (for an answer, with THREAD_CONVERSATIONS=answer, or
with /otomo thread); the ids are stored, so a restarted bot still knows its threads. In one,
the thread is one conversation and each member a speaker in it (their name on their turns).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import Literal

import discord

from bot.i18n import Language, answers
from bot.servers.directory import ServerDirectory
from bot.storage.threads import BotThreads
from bot.text.clip import clip

log = logging.getLogger(__name__)

# Discord's limit on a thread's name.
THREAD_NAME_MAX = 100
# Threads with no message for a day are archived by Discord (a new message reopens them).
AUTO_ARCHIVE_MINUTES: Literal[1440] = 1440


class Threads:
    """Opens the bot's threads and knows which threads are the bot's."""

    def __init__(
        self, store: BotThreads, servers: ServerDirectory, now: Callable[[], datetime]
    ) -> None:
        self.store = store
        self.servers = servers
        self._now = now

    async def is_ours(self, channel: object) -> bool:
        """Whether channel is a thread the bot opened (no database read for other channels)."""
        if not isinstance(channel, discord.Thread):
            return False
        return await self.store.is_ours(channel.id)

    async def opens_for(self, message: discord.Message) -> bool:
        """Whether this server moves the answer to a mention here into a new thread."""
        if message.guild is None or not isinstance(message.channel, discord.TextChannel):
            return False
        mode = await self.servers.thread_mode(message.guild.id, message.channel.id)
        return mode == "answer"

    async def open_from(
        self, message: discord.Message, language: Language
    ) -> discord.Thread | None:
        """A thread started from the member's message, for the answer; None when Discord
        refuses (the answer then stays in the channel)."""
        name = clip(
            answers.THREAD_NAME(language, name=message.author.display_name), THREAD_NAME_MAX
        )
        try:
            thread = await message.create_thread(
                name=name, auto_archive_duration=AUTO_ARCHIVE_MINUTES
            )
        except discord.HTTPException as exc:
            log.warning(
                "Could not open a thread in channel %s: %s %s",
                message.channel.id,
                exc.status,
                exc.text,
            )
            return None
        await self._remember(thread, message.author.id)
        return thread

    async def open_in(
        self, channel: discord.TextChannel, name: str, user_id: int
    ) -> discord.Thread | None:
        """A new public thread in channel, for a conversation a member asked for."""
        try:
            thread = await channel.create_thread(
                name=clip(name, THREAD_NAME_MAX),
                type=discord.ChannelType.public_thread,
                auto_archive_duration=AUTO_ARCHIVE_MINUTES,
            )
        except discord.HTTPException as exc:
            log.warning(
                "Could not open a thread in channel %s: %s %s", channel.id, exc.status, exc.text
            )
            return None
        await self._remember(thread, user_id)
        return thread

    async def _remember(self, thread: discord.Thread, user_id: int) -> None:
        await self.store.add(
            thread.id,
            thread.guild.id if thread.guild else None,
            thread.parent_id or 0,
            user_id,
            self._now(),
        )
