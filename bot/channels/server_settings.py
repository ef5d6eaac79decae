"""The channels feature's per-server settings: where Otomo listens, and how often it answers."""

from __future__ import annotations

from bot.channels import words
from bot.channels.settings import ChannelSettings
from bot.servers.config import BadValue, ServerConfig, Setting, SettingsGroup, parse_ids


def parse_cooldown(text: str) -> int:
    """A cool-down typed in seconds, 0 to a day."""
    cleaned = text.strip()
    if not cleaned.isdigit() or int(cleaned) > 86400:
        raise BadValue(words.SECONDS_RANGE)
    return int(cleaned)


LISTENING_CHANNELS = Setting(
    "listening_channels",
    "メンションなしで答えるチャンネル",
    "Channels where Otomo listens (no mention needed)",
    parse_ids,
    "listening",
    "channels",
    default=frozenset(),
)
LISTEN_COOLDOWN = Setting(
    "listen_cooldown_seconds",
    "聞くチャンネルの間隔（秒）",
    "Listening cool-down per channel (seconds)",
    parse_cooldown,
    "listening",
    # The operator's LISTEN_COOLDOWN_SECONDS until the server's admins change it.
    default=ChannelSettings.model_validate({}).listen_cooldown_seconds,
    from_settings=lambda settings: settings.section(ChannelSettings).listen_cooldown_seconds,
)

SERVER_SETTINGS = SettingsGroup(
    "listening", words.SETTINGS_GROUP, (LISTENING_CHANNELS, LISTEN_COOLDOWN)
)


def listens_in(config: ServerConfig, channel_id: int) -> bool:
    """Whether Otomo answers questions in this channel without being mentioned (the channel
    itself: its threads and the rest of its category still need a mention)."""
    return channel_id in config.get(LISTENING_CHANNELS) and config.answers_in(channel_id)
