"""The weather handler: its name and the cues that route to it (the weather feature's
instructions, a section of its prompt, say who answers and how)."""

from __future__ import annotations

from bot.handlers.spec import HandlerSpec
from bot.weather.cues import WEATHER, WEATHER_CUES

__all__ = ["WEATHER", "WEATHER_HANDLER"]

WEATHER_HANDLER = HandlerSpec(WEATHER, "", WEATHER_CUES)
