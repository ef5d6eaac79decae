"""Settings: typed values read from the environment and `.env`, errors as sentences."""

from bot.settings.environment import (
    Settings,
    SettingsSection,
    load_settings,
    prepare_litellm_environment,
    setting_names,
)
from bot.settings.errors import SettingsError

__all__ = [
    "Settings",
    "SettingsError",
    "SettingsSection",
    "load_settings",
    "prepare_litellm_environment",
    "setting_names",
]
