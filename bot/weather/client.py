"""HTTP client for Open-Meteo's geocoding and forecast APIs (no key needed)."""

from __future__ import annotations

import logging
from typing import Any

import aiohttp
from pydantic import BaseModel, ValidationError

from bot.weather.errors import WeatherUnavailableError
from bot.weather.forecast import ForecastResponse
from bot.weather.places import Place

log = logging.getLogger(__name__)

REQUEST_TIMEOUT_SECONDS = 10.0
GEOCODING_RESULTS = 5
HOURLY_FIELDS = "weather_code,precipitation_probability,relative_humidity_2m,wind_speed_10m"
DAILY_FIELDS = "weather_code,temperature_2m_max,temperature_2m_min,wind_speed_10m_max"


class _GeocodingResult(BaseModel):
    name: str
    latitude: float
    longitude: float
    timezone: str | None = None
    admin1: str | None = None
    country: str | None = None


class _GeocodingResponse(BaseModel):
    # Open-Meteo leaves `results` out entirely when nothing matched.
    results: list[_GeocodingResult] = []


class OpenMeteoClient:
    """Talks to Open-Meteo; every transport or provider failure becomes WeatherUnavailableError."""

    def __init__(
        self,
        forecast_base: str,
        geocoding_base: str,
        *,
        timeout: float = REQUEST_TIMEOUT_SECONDS,
        session: aiohttp.ClientSession | None = None,
    ) -> None:
        self._forecast_url = f"{forecast_base.rstrip('/')}/forecast"
        self._geocoding_url = f"{geocoding_base.rstrip('/')}/search"
        self._timeout = aiohttp.ClientTimeout(total=timeout)
        self._session = session
        self._owns_session = session is None

    async def geocode(self, name: str, language: str, default_timezone: str) -> list[Place]:
        """Places matching name, best first, with names in language where Open-Meteo has them."""
        params = {
            "name": name,
            "count": str(GEOCODING_RESULTS),
            "language": language,
            "format": "json",
        }
        body = await self._get_json(self._geocoding_url, params)
        try:
            parsed = _GeocodingResponse.model_validate(body)
        except ValidationError as exc:
            raise WeatherUnavailableError(f"unexpected geocoding answer: {exc}") from None
        return [
            Place(
                name=r.name,
                latitude=r.latitude,
                longitude=r.longitude,
                timezone=r.timezone or default_timezone,
                region=r.admin1,
                country=r.country,
            )
            for r in parsed.results
        ]

    async def forecast(self, place: Place, days: int) -> ForecastResponse:
        """Hourly and daily forecast for days from today, in the place's local time."""
        params = {
            "latitude": f"{place.latitude:.4f}",
            "longitude": f"{place.longitude:.4f}",
            "hourly": HOURLY_FIELDS,
            "daily": DAILY_FIELDS,
            "timezone": place.timezone,
            "wind_speed_unit": "ms",
            "forecast_days": str(days),
        }
        body = await self._get_json(self._forecast_url, params)
        try:
            parsed = ForecastResponse.model_validate(body)
        except ValidationError as exc:
            raise WeatherUnavailableError(f"unexpected forecast answer: {exc}") from None
        if not parsed.daily.time:
            raise WeatherUnavailableError("the forecast answer has no days")
        return parsed

    async def close(self) -> None:
        """Close the HTTP session if this client opened it."""
        if self._session is not None and self._owns_session:
            await self._session.close()
        self._session = None

    def _http(self) -> aiohttp.ClientSession:
        # Created on first use so the session belongs to the running event loop.
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(timeout=self._timeout)
            self._owns_session = True
        return self._session

    async def _get_json(self, url: str, params: dict[str, str]) -> Any:
        try:
            async with self._http().get(url, params=params, timeout=self._timeout) as response:
                if response.status != 200:
                    text = (await response.text())[:300]
                    log.warning("Open-Meteo %s answered %s: %s", url, response.status, text)
                    raise WeatherUnavailableError(f"HTTP {response.status} from {url}: {text}")
                return await response.json(content_type=None)
        except TimeoutError:
            log.warning("Open-Meteo %s did not answer within %s s", url, self._timeout.total)
            raise WeatherUnavailableError(f"timeout after {self._timeout.total} s") from None
        except (aiohttp.ClientError, ValueError) as exc:
            log.warning("Open-Meteo %s failed: %s", url, exc)
            raise WeatherUnavailableError(f"{type(exc).__name__}: {exc}") from None
