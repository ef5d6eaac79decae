"""The weather feature: the forecast tool in the weather and general handlers, its instructions."""

from __future__ import annotations

from bot.agent.runs import PromptInput
from bot.handlers import router
from bot.handlers.builder import AppBuilder
from bot.handlers.services import Shared
from bot.weather.handler import WEATHER
from bot.weather.prompt import weather_instructions
from bot.weather.service import WeatherService
from bot.weather.tools import WEATHER_TOOLS, WeatherDeps


def register(app: AppBuilder, deps: WeatherDeps) -> None:
    """Offer get_forecast, add the weather instructions, close the service's client at stop."""
    default_place = app.settings.weather_default_place

    async def weather_section(_: PromptInput) -> str:
        return weather_instructions(default_place)

    app.add_tools(WEATHER_TOOLS, offered_in=[WEATHER, router.GENERAL])
    app.add_section(weather_section, handlers=[WEATHER])
    app.on_close(deps.weather.close)


def services(shared: Shared) -> dict[str, object]:
    """The forecasts."""
    return {"weather": WeatherService(shared.settings, shared.clock)}
