"""Weather: Open-Meteo forecasts with laundry and umbrella advice, the tool and the daily post."""

from bot.weather.daily import (
    DailyWeatherJob,
    DailyWeatherReport,
    build_daily_report,
    warn_if_half_configured,
)
from bot.weather.errors import (
    InvalidDayError,
    UnknownPlaceError,
    WeatherError,
    WeatherUnavailableError,
)
from bot.weather.forecast import Forecast
from bot.weather.places import Place
from bot.weather.prompt import weather_instructions
from bot.weather.service import WeatherService
from bot.weather.tools import WEATHER_TOOLS, WeatherDeps

__all__ = [
    "WEATHER_TOOLS",
    "DailyWeatherJob",
    "DailyWeatherReport",
    "Forecast",
    "InvalidDayError",
    "Place",
    "UnknownPlaceError",
    "WeatherDeps",
    "WeatherError",
    "WeatherService",
    "WeatherUnavailableError",
    "build_daily_report",
    "warn_if_half_configured",
    "weather_instructions",
]
