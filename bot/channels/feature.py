"""The channels feature: a channel's persona in the stable part of its prompts."""

from __future__ import annotations

from typing import Protocol

from bot.agent.runs import PromptInput
from bot.channels import table, words
from bot.channels.server_settings import SERVER_SETTINGS
from bot.channels.service import ChannelVoices
from bot.channels.settings import ChannelSettings
from bot.handlers.builder import AppBuilder
from bot.handlers.declarations import Declarations
from bot.handlers.services import Shared

# Every handler answers in the channel's voice, not only chit-chat.
EVERY_HANDLER = "*"


class ChannelsDeps(Protocol):
    """What the channels feature needs of the bot's services."""

    @property
    def channels(self) -> ChannelVoices:
        """Each channel's persona and listening turn."""
        ...


def channel_voice(persona: str) -> str:
    """The prompt section of a channel's persona (empty when it has none)."""
    if not persona.strip():
        return ""
    return (
        "このチャンネルでの話し方（サーバーのペルソナに加えて、このチャンネルだけ）:\n"
        "In this channel only, on top of the server's persona:\n" + persona.strip()
    )


def register(app: AppBuilder, deps: ChannelsDeps) -> None:
    """Add the channel's persona to every handler's stable prompt in that channel."""

    async def voice_section(prompt: PromptInput) -> str:
        # Stable: it changes only when an admin changes it, so the prompt cache holds.
        return channel_voice(await deps.channels.persona(prompt.guild_id, prompt.channel_id))

    app.add_section(voice_section, handlers=[EVERY_HANDLER])


def services(shared: Shared) -> dict[str, object]:
    """Each channel's own persona and listening cool-down."""
    fresh = shared.settings.server_settings_refresh_seconds
    return {"channels": ChannelVoices(shared.database.sessions, shared.clock, fresh_seconds=fresh)}


# What the feature brings to the shared layers: LISTEN_COOLDOWN_SECONDS, the listening settings
# of each server, /otomo channel's words, the channel settings table.
DECLARES = Declarations(
    settings=ChannelSettings,
    server_settings=SERVER_SETTINGS,
    words=words.COMMAND_WORDS,
    tables=table,
)
