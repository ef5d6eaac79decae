"""What a failed send to Discord means, in one vocabulary for everything that sends.

Streamed replies, cards, scheduled posts and reminders all see the same two outcomes: worth
retrying later, or refused until someone acts. The Discord layer's one classifier
(`bot/discord_ui/sends.py`) maps discord.py's exceptions onto these, so no service has
to import discord.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import ClassVar

log = logging.getLogger(__name__)


class SendError(Exception):
    """A send failed; `retryable` says whether trying again later can work."""

    retryable: ClassVar[bool] = False

    def __init__(self, reason: str = "", retry_after: float | None = None) -> None:
        super().__init__(reason or "Discord did not take the message")
        self.reason = str(self)
        # Discord's Retry-After in seconds, when it gave one.
        self.retry_after = retry_after


class RetryableSendError(SendError):
    """It may pass: a rate limit (429), a Discord outage (5xx), the network, a bot not ready."""

    retryable = True


class PermanentSendError(SendError):
    """It will not pass by retrying: no access (403), channel gone (404), cannot send here."""

    retryable = False


async def post_scheduled(what: str, post: Callable[[], Awaitable[object]], fix: str) -> bool:
    """Post one scheduled message (the daily weather, a tip); True when it went out.

    The one failure path of every scheduled post: a failure that may pass is a warning and
    the next run tries again; a refusal is an error naming what the operator should fix.
    Nothing is raised, so a job never stops the scheduler.
    """
    try:
        await post()
    except RetryableSendError as exc:
        log.warning("%s not posted (Discord may recover by the next run): %s", what, exc)
        return False
    except PermanentSendError as exc:
        log.error("%s not posted: %s. %s", what, exc, fix)
        return False
    return True
