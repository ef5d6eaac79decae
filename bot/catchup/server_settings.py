"""The catch-up feature's per-server setting: the most messages a catch-up reads."""

from __future__ import annotations

from bot.catchup import words
from bot.catchup.settings import CatchupSettings
from bot.servers.config import BadValue, Setting, SettingsGroup


def parse_cap(text: str) -> int:
    """A number of messages, 10 to 1000."""
    cleaned = text.strip()
    if not cleaned.isdigit() or not 10 <= int(cleaned) <= 1000:
        raise BadValue(words.CATCHUP_RANGE)
    return int(cleaned)


CATCHUP_MAX_MESSAGES = Setting(
    "catchup_max_messages",
    "/otomo catchup で読む最大件数",
    "Most messages /otomo catchup reads",
    parse_cap,
    "catchup",
    # The operator's CATCHUP_MAX_MESSAGES until the server's admins change it.
    default=CatchupSettings.model_validate({}).max_messages,
    from_settings=lambda settings: settings.section(CatchupSettings).max_messages,
)

SERVER_SETTINGS = SettingsGroup("catchup", words.SETTINGS_GROUP, (CATCHUP_MAX_MESSAGES,))
