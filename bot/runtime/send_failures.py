"""What a failed send to Discord means, in one vocabulary for everything that sends.

Streamed replies, cards, scheduled posts and reminders all see the same two outcomes: worth
retrying later, or refused until someone acts. The Discord layer's one classifier
(`bot/discord_ui/sends.py`) maps discord.py's exceptions onto these, so no service has
to import discord.
"""

from __future__ import annotations

from typing import ClassVar


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
