"""Settings: typed values read from the environment and `.env`, errors as sentences."""

from bot.settings.environment import Settings, load_settings, prepare_litellm_environment
from bot.settings.errors import SettingsError

__all__ = [
    "Settings",
    "SettingsError",
    "load_settings",
    "prepare_litellm_environment",
]
