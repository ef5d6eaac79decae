"""What each server chose for how Otomo talks there, read through one seam.

Today every server gets the bot-wide settings; per-server settings answer here later, so the
code that posts or opens threads never reads the settings for these directly.
"""

from __future__ import annotations

from bot.i18n import Language
from bot.settings.environment import Settings, ThreadMode


class ServerChoices:
    """The language of a server's posts and whether its conversations move to threads."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings

    async def post_language(self, guild_id: int | None) -> Language:
        """The language of posts to a channel of this server (weather, tips, reminders)."""
        return self._settings.default_language

    async def thread_mode(self, guild_id: int | None, channel_id: int) -> ThreadMode:
        """Whether a mention in this channel gets its answer in a thread the bot opens."""
        return self._settings.thread_conversations
