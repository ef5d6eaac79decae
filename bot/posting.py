"""Errors a scheduled post can meet, shared by every feature that posts to Discord.

Services raise or catch these; the Discord layer maps discord.py's exceptions onto them, so no
service has to import discord.
"""

from __future__ import annotations


class PostError(Exception):
    """The Discord layer could not post; the subclass says whether to try again."""


class TransientPostError(PostError):
    """Posting failed for a reason that may pass (Discord 5xx, rate limit, network)."""

    def __init__(self, message: str = "", retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class PermanentPostError(PostError):
    """Posting cannot work until someone acts (channel deleted, missing permission)."""
