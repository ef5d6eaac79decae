"""The weather service: resolve a place, fetch its forecast (cached), summarise one day."""

from __future__ import annotations

from datetime import date, timedelta
from types import TracebackType
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.runtime.clock import Clock
from bot.settings import Settings
from bot.weather.cache import TtlCache
from bot.weather.client import REQUEST_TIMEOUT_SECONDS, OpenMeteoClient
from bot.weather.errors import UnknownPlaceError
from bot.weather.forecast import (
    FORECAST_DAYS,
    Forecast,
    ForecastResponse,
    day_forecast,
    resolve_day,
)
from bot.weather.places import Place, known_place, place_key, strip_suffix

# Forecasts change a few times an hour at most; places practically never.
FORECAST_TTL = timedelta(minutes=10)
PLACE_TTL = timedelta(hours=24)


def _geocoding_attempts(key: str) -> list[tuple[str, str]]:
    """Queries to try in order: Japanese (as written, then without 市/県…, or with 市 added to a
    two-character name, which Open-Meteo only matches exactly), then English ("Karuizawa")."""
    attempts = [(key, "ja")]
    stripped = strip_suffix(key)
    if stripped != key:
        attempts.append((stripped, "ja"))
    elif len(key) == 2 and not key.isascii():
        attempts.append((f"{key}市", "ja"))
    attempts.append((key, "en"))
    return attempts


class WeatherService:
    """Forecasts for Japanese or English place names, cached for FORECAST_TTL."""

    def __init__(
        self,
        settings: Settings,
        clock: Clock,
        *,
        client: OpenMeteoClient | None = None,
        timeout: float = REQUEST_TIMEOUT_SECONDS,
    ) -> None:
        self._settings = settings
        self._clock = clock
        self._client = client or OpenMeteoClient(
            settings.weather_api_base, settings.geocoding_api_base, timeout=timeout
        )
        self._places: TtlCache[str, Place] = TtlCache(clock, PLACE_TTL)
        # Remembering misses spares the provider a model that retries the same unknown name.
        self._unknown: TtlCache[str, bool] = TtlCache(clock, FORECAST_TTL)
        self._forecasts: TtlCache[tuple[float, float, str], ForecastResponse] = TtlCache(
            clock, FORECAST_TTL
        )

    @property
    def default_place(self) -> str:
        """The place used when the user names none."""
        return self._settings.weather_default_place

    async def resolve_place(self, name: str | None) -> Place:
        """The place called name (default place when None or blank), or UnknownPlaceError."""
        wanted = (name or "").strip() or self.default_place
        builtin = known_place(wanted)
        if builtin is not None:
            return builtin
        key = place_key(wanted)
        cached = self._places.get(key)
        if cached is not None:
            return cached
        if self._unknown.get(key):
            raise UnknownPlaceError(wanted)
        for query, language in _geocoding_attempts(key):
            found = await self._client.geocode(query, language, self._settings.bot_timezone)
            if found:
                self._places.put(key, found[0])
                return found[0]
        self._unknown.put(key, True)
        raise UnknownPlaceError(wanted)

    def zone_of(self, place: Place) -> ZoneInfo:
        """The place's time zone (the bot's own when the provider named an unknown one)."""
        try:
            return ZoneInfo(place.timezone)
        except (ZoneInfoNotFoundError, ValueError):
            return self._settings.timezone

    def today_at(self, place: Place) -> date:
        """The current date in the place's time zone."""
        return self._clock.now().astimezone(self.zone_of(place)).date()

    async def get_forecast(self, place: str | None = None, day: str | date = "today") -> Forecast:
        """One day's forecast: today / tomorrow / day after tomorrow / YYYY-MM-DD (or a date)."""
        resolved = await self.resolve_place(place)
        target = resolve_day(day, self.today_at(resolved))
        key = (round(resolved.latitude, 3), round(resolved.longitude, 3), resolved.timezone)
        response = self._forecasts.get(key)
        if response is None:
            response = await self._client.forecast(resolved, FORECAST_DAYS)
            self._forecasts.put(key, response)
        return day_forecast(response, resolved, target)

    async def close(self) -> None:
        """Release the HTTP session."""
        await self._client.close()

    async def __aenter__(self) -> WeatherService:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()
