"""Settings: typed values read from the environment and `.env`, errors as sentences."""

from bot.settings.environment import Settings, load_settings, prepare_litellm_environment
from bot.settings.errors import SettingsError
from bot.settings.servers import ServerChoices

__all__ = [
    "ServerChoices",
    "Settings",
    "SettingsError",
    "load_settings",
    "prepare_litellm_environment",
]
