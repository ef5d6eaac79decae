"""What a member sees when a click or a slash command fails: a private sentence, never Discord's
bare "This interaction failed"."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import discord

from bot.storage.outage import DatabaseHealth

log = logging.getLogger(__name__)

INTERNAL_ERROR = (
    "ごめんなさい、内部エラーが起きました。少し待ってもう一度お願いします。/ Sorry, "
    "something went wrong on my side; please try again in a moment."
)

# A mention that arrives while the bot shuts down (a deploy): it is not answered by this process.
RESTARTING = (
    "いま再起動中なので答えられません。少ししてからもう一度話しかけてください。/ I'm restarting "
    "right now, so I can't answer this; mention me again in a minute."
)

# Conversations, approvals and reminders all live in the database: without it, say so.
DATABASE_UNREACHABLE = (
    "ごめんなさい、いまデータベースにつながらないので答えられません。少ししてからもう一度お願いします。"
    "/ Sorry, I can't reach my database right now, so I can't answer; please try again in a "
    "minute. Reminders are kept and will still be posted."
)

# Cards, reminders and settings all live in the database: a click cannot be served without it.
DATABASE_UNREACHABLE_ACTION = (
    "ごめんなさい、いまデータベースにつながらないので、この操作ができません。少ししてからもう一度"
    "お願いします。/ Sorry, I can't reach my database right now, so I can't do that; please try "
    "again in a minute. Reminders are kept and will still be posted."
)


async def tell_failure(
    interaction: discord.Interaction[Any], error: BaseException, health: DatabaseHealth
) -> None:
    """Answer a failed click or command privately: the outage sentence while the database is
    unreachable (the outage is logged once, by its health), else the internal-error sentence
    with the traceback in the log."""
    if health.noticed(error):
        sentence = DATABASE_UNREACHABLE_ACTION
    else:
        log.error("Interaction %s failed", interaction.id, exc_info=error)
        sentence = INTERNAL_ERROR
    try:
        if interaction.response.is_done():
            await interaction.followup.send(sentence, ephemeral=True)
        else:
            await interaction.response.send_message(sentence, ephemeral=True)
    except discord.HTTPException as exc:  # the interaction expired or the channel is gone
        log.warning("Could not tell interaction %s it failed: %s", interaction.id, exc)


@contextlib.asynccontextmanager
async def failures_told(
    interaction: discord.Interaction[Any], health: DatabaseHealth
) -> AsyncIterator[None]:
    """Inside, an exception becomes a sentence to whoever clicked (see tell_failure)."""
    try:
        yield
    except Exception as exc:
        await tell_failure(interaction, exc, health)
