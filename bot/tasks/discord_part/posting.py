"""Posting a task's answer: to its channel (checked to be of its server) or its owner's DMs, split
below Discord's limit, with the run's nonce, pinging only people the owner's prompt names."""

from __future__ import annotations

import logging
import re

import discord

from bot.discord_ui.answering.splitting import split_message
from bot.discord_ui.posting import ChannelPoster
from bot.discord_ui.sends import classify
from bot.runtime.pacing import SendPacer
from bot.tasks.runner import PostFailed
from bot.tasks.service import TaskView

log = logging.getLogger(__name__)

_USER_MENTION = re.compile(r"<@!?(\d+)>")


def mentions_of(task: TaskView) -> discord.AllowedMentions:
    """Only the people the owner's prompt names may be pinged; never @everyone, @here or roles."""
    users = [discord.Object(int(i)) for i in dict.fromkeys(_USER_MENTION.findall(task.prompt))]
    return discord.AllowedMentions(everyone=False, roles=False, users=users, replied_user=False)


class DiscordTaskPoster:
    """The runner's seam to Discord (TaskPoster), and the owner's DMs."""

    def __init__(self, client: discord.Client, pacer: SendPacer) -> None:
        self._client = client
        self._channels = ChannelPoster(client)
        self._pacer = pacer

    async def _destination(self, task: TaskView) -> discord.abc.Messageable:
        if task.to_dm:
            user = await self._client.fetch_user(task.owner_id)
            return await user.create_dm()
        if task.guild_id is not None and not await self._channels.in_server(
            task.channel_id, task.guild_id
        ):
            raise PostFailed("gone", f"channel {task.channel_id} is not in server {task.guild_id}")
        return self._client.get_partial_messageable(task.channel_id)

    async def post(self, task: TaskView, text: str, nonce: str) -> int:
        """Post text (split when long); the first message's id."""
        try:
            channel = await self._destination(task)
            first: int | None = None
            for number, chunk in enumerate(split_message(text)):
                await self._pacer.wait_turn(task.channel_id)
                message = await channel.send(
                    chunk,
                    nonce=nonce if number == 0 else f"{nonce}p{number}",
                    allowed_mentions=mentions_of(task),
                )
                first = first or message.id
        except PostFailed:
            raise
        except Exception as exc:
            raise _failure(exc) from exc
        assert first is not None
        return first

    async def tell_owner(self, task: TaskView, text: str) -> None:
        """DM the task's owner (a failure is logged: nobody else could be told)."""
        try:
            user = await self._client.fetch_user(task.owner_id)
            await user.send(text, allowed_mentions=discord.AllowedMentions.none())
        except Exception as exc:
            log.warning("Could not tell the owner of task #%s: %s", task.id, exc)


def _failure(exc: Exception) -> Exception:
    if isinstance(exc, discord.NotFound):
        return PostFailed("gone", str(exc))
    if isinstance(exc, discord.Forbidden):
        return PostFailed("refused", str(exc))
    failure = classify(exc)
    if failure is None:
        return exc
    return PostFailed("refused" if not failure.retryable else "away", failure.reason)
