"""The read-only `get_forecast` tool the weather handler offers the model."""

from __future__ import annotations

from datetime import date
from typing import Any, Protocol

from bot.agent.tools import Tool, ToolContext, ToolError, tool
from bot.agent.tools.presentation import Label, Look
from bot.i18n import Text
from bot.weather.errors import InvalidDayError, UnknownPlaceError, WeatherUnavailableError
from bot.weather.forecast import Forecast, day_label_ja
from bot.weather.service import WeatherService


def forecast_summary(forecast: Forecast, today: date) -> dict[str, Any]:
    """The forecast as compact JSON-ready data for the model."""
    rain = forecast.rain_chance
    laundry = forecast.laundry
    return {
        "place": forecast.place.label(),
        "place_en": forecast.place.name_en,
        "latitude": forecast.place.latitude,
        "longitude": forecast.place.longitude,
        "date": forecast.date.isoformat(),
        "day": day_label_ja(forecast.date, today),
        "conditions": {"ja": forecast.conditions.ja, "en": forecast.conditions.en},
        "temperature_max_c": forecast.temperature_max_c,
        "temperature_min_c": forecast.temperature_min_c,
        "rain_chance_percent": {
            "morning_06_12": rain.morning,
            "afternoon_12_18": rain.afternoon,
            "evening_18_24": rain.evening,
        },
        "humidity_mean_percent": forecast.humidity_mean_percent,
        "wind_max_m_s": forecast.wind_max_m_s,
        "laundry": {
            "index_0_100": laundry.index,
            "advice_ja": laundry.ja,
            "advice_en": laundry.en,
            "warning_ja": laundry.note_ja,
            "warning_en": laundry.note_en,
        },
        "umbrella": {"ja": forecast.umbrella.ja, "en": forecast.umbrella.en},
    }


async def _answer(service: WeatherService, place: str | None, day: str) -> dict[str, Any]:
    try:
        forecast = await service.get_forecast(place, day)
    except UnknownPlaceError:
        raise ToolError(
            f"No place called {place!r} was found. Ask the user which city or prefecture they "
            "mean, then call get_forecast again with that name."
        ) from None
    except WeatherUnavailableError:
        raise ToolError(
            "The weather service is unreachable right now. Tell the user plainly that the "
            "forecast is unavailable at the moment and to try again in a few minutes; "
            "do not guess the weather."
        ) from None
    except InvalidDayError as exc:
        raise ToolError(str(exc)) from None
    return forecast_summary(forecast, service.today_at(forecast.place))


class WeatherDeps(Protocol):
    """What the weather tool needs of the bot's dependencies."""

    @property
    def weather(self) -> WeatherService:
        """The shared weather service (its cache serves every call)."""
        ...


FORECAST_LOOK = Look(
    title=Text("天気予報", "Weather forecast"),
    labels={"place": Label(Text("場所", "Place")), "day": Label(Text("日", "Day"))},
    doing=Text("天気予報を確認", "Checking the forecast"),
)


@tool(requires_approval=False, read_only=True, look=FORECAST_LOOK)
async def get_forecast(
    ctx: ToolContext[WeatherDeps], day: str, place: str | None = None
) -> dict[str, Any]:
    """One day's forecast at one place: weather, high/low °C, rain chance by part of the day,
    wind, laundry and umbrella advice.

    Args:
        day: today, tomorrow, day after tomorrow, or YYYY-MM-DD within 7 days.
        place: city or prefecture as written (東京, 大阪府, Sapporo); omit for the default.
    """
    return await _answer(ctx.deps.weather, place, day)


WEATHER_TOOLS: list[Tool] = [get_forecast]
