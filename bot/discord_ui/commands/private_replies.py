"""Private answers to slash commands and buttons: ephemeral, within one message, pinging nobody."""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.text.clip import clip

log = logging.getLogger(__name__)

# Discord's limit for one message.
MESSAGE_CHARS = 2000

# Command answers quote members' and admins' text, which may hold @everyone or role mentions.
NO_MENTIONS = discord.AllowedMentions.none()


async def say(interaction: discord.Interaction[Any], content: str, **extra: Any) -> None:
    """Answer ephemerally, as the first response or a followup, without pinging anyone."""
    options: dict[str, Any] = {"ephemeral": True, "allowed_mentions": NO_MENTIONS, **extra}
    try:
        if interaction.response.is_done():
            await interaction.followup.send(clip(content, MESSAGE_CHARS), **options)
        else:
            await interaction.response.send_message(clip(content, MESSAGE_CHARS), **options)
    except discord.HTTPException as exc:
        log.warning("Could not answer interaction %s: %s %s", interaction.id, exc.status, exc.text)
