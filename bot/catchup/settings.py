"""The catch-up feature's environment settings (see .env.example)."""

from __future__ import annotations

from pydantic import Field

from bot.settings import SettingsSection


class CatchupSettings(SettingsSection):
    """/otomo catchup: the most messages one catch-up reads (each server may change it)."""

    max_messages: int = Field(200, ge=10, le=1000, alias="CATCHUP_MAX_MESSAGES")
