"""The channels feature's environment settings (see .env.example)."""

from __future__ import annotations

from pydantic import Field

from bot.settings import SettingsSection


class ChannelSettings(SettingsSection):
    """Listening channels: the least time between two unmentioned answers in one channel
    (each server may change it in /otomo settings)."""

    listen_cooldown_seconds: int = Field(120, ge=0, le=86400, alias="LISTEN_COOLDOWN_SECONDS")
