"""What a member sees when a click or a slash command fails: a private sentence, never Discord's
bare "This interaction failed"."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import discord

from bot.i18n import answers, language_of_locale
from bot.storage.outage import DatabaseHealth

log = logging.getLogger(__name__)


async def tell_failure(
    interaction: discord.Interaction[Any], error: BaseException, health: DatabaseHealth
) -> None:
    """Answer a failed click or command privately: the outage sentence while the database is
    unreachable (the outage is logged once, by its health), else the internal-error sentence
    with the traceback in the log."""
    language = language_of_locale(interaction.locale)
    if health.noticed(error):
        sentence = answers.DATABASE_UNREACHABLE_ACTION(language)
    else:
        log.error("Interaction %s failed", interaction.id, exc_info=error)
        sentence = answers.INTERNAL_ERROR(language)
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
