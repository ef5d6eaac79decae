"""A fake Open-Meteo (geocoding `/v1/search` and forecast `/v1/forecast`) on 127.0.0.1 for tests.

The real aiohttp client reaches it through ``weather_api_base=fake.api_base`` and
``geocoding_api_base=fake.api_base``. Each test scripts the days it cares about with
``fake.set_day(date, DayWeather(...))``; other days are mild and dry. ``fake.fail_status = 500``
makes every request fail, ``fake.hang = True`` makes every request wait until the server closes,
``fake.hold()`` until ``fake.release()``.
"""

from __future__ import annotations

import asyncio
import math
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from aiohttp import web

from tests.fakes.local_server import LocalServer


@dataclass(frozen=True)
class DayWeather:
    """One scripted day: what the fake reports hour by hour and in its daily summary."""

    weather_code: int = 1
    temperature_max: float = 20.0
    temperature_min: float = 12.0
    # Precipitation probability (%) for 00-06, 06-12, 12-18 and 18-24.
    rain: tuple[int, int, int, int] = (0, 0, 0, 0)
    # Relative humidity (%) from 06 to 18; nights are 10 points damper, at most 100.
    humidity: int = 50
    wind_max: float = 3.0  # m/s, reached at 14:00; other hours blow at 60 %


@dataclass(frozen=True)
class GeoEntry:
    """A place the fake geocoder knows, with its names per language."""

    names: dict[str, str]
    latitude: float
    longitude: float
    timezone: str
    country: dict[str, str]
    admin1: dict[str, str] = field(default_factory=dict)
    population: int = 0

    def matches(self, query: str, language: str) -> bool:
        """Names in the requested language are searched (English when it has none there);
        two characters must match a name exactly, three or more also match its beginning."""
        names = [self.names.get(language, self.names["en"]).casefold()]
        needle = query.casefold()
        if len(needle) < 2:
            return False
        return needle in names or (len(needle) >= 3 and any(n.startswith(needle) for n in names))

    def result(self, language: str, ident: int) -> dict[str, Any]:
        """The JSON object Open-Meteo returns for this place."""
        return {
            "id": ident,
            "name": self.names.get(language, self.names["en"]),
            "latitude": self.latitude,
            "longitude": self.longitude,
            "elevation": 40.0,
            "feature_code": "PPL",
            "country_code": "JP" if self.timezone == "Asia/Tokyo" else "XX",
            "timezone": self.timezone,
            "population": self.population,
            "country": self.country.get(language, self.country["en"]),
            "admin1": self.admin1.get(language, self.admin1.get("en")),
        }


DEFAULT_PLACES: tuple[GeoEntry, ...] = (
    GeoEntry(
        names={"ja": "軽井沢町", "en": "Karuizawa"},
        latitude=36.3484,
        longitude=138.5970,
        timezone="Asia/Tokyo",
        country={"ja": "日本", "en": "Japan"},
        admin1={"ja": "長野県", "en": "Nagano"},
        population=19_000,
    ),
    GeoEntry(
        names={"ja": "ベルリン", "en": "Berlin"},
        latitude=52.5244,
        longitude=13.4105,
        timezone="Europe/Berlin",
        country={"ja": "ドイツ", "en": "Germany"},
        admin1={"ja": "ベルリン州", "en": "Land Berlin"},
        population=3_426_354,
    ),
    # No Japanese name: a Japanese-language search falls back to the English one.
    GeoEntry(
        names={"en": "Springfield"},
        latitude=39.8017,
        longitude=-89.6437,
        timezone="America/Chicago",
        country={"en": "United States"},
        admin1={"en": "Illinois"},
        population=116_250,
    ),
)


class FakeOpenMeteo(LocalServer):
    """Serves geocoding and forecasts from scripted data, counting every request."""

    def __init__(self, today: date, places: tuple[GeoEntry, ...] = DEFAULT_PLACES) -> None:
        super().__init__()
        self.today = today
        self.places = list(places)
        self.days: dict[date, DayWeather] = {}
        self.default_day = DayWeather()
        self.fail_status: int | None = None
        self.hang = False
        self.requests: list[tuple[str, dict[str, str]]] = []
        self._open = asyncio.Event()
        self._open.set()

    def hold(self) -> None:
        """Keep every request waiting (recorded, unanswered) until `release()`."""
        self._open.clear()

    def release(self) -> None:
        """Answer the held requests and every later one."""
        self._open.set()

    # -- scripting and inspection ------------------------------------------------------------

    def set_day(self, day: date, weather: DayWeather) -> None:
        """Script the weather of one day."""
        self.days[day] = weather

    def count(self, path: str) -> int:
        """How many requests reached path ("/v1/search" or "/v1/forecast")."""
        return Counter(p for p, _ in self.requests)[path]

    @property
    def api_base(self) -> str:
        """The base URL to give both WEATHER_API_BASE and GEOCODING_API_BASE."""
        return f"{self.url}/v1"

    # -- server ------------------------------------------------------------------------------

    def _app(self) -> web.Application:
        """Geocoding and forecast under ``/v1``, as on Open-Meteo."""
        app = web.Application()
        app.router.add_get("/v1/search", self._search)
        app.router.add_get("/v1/forecast", self._forecast)
        return app

    async def _misbehave(self, request: web.Request) -> web.Response | None:
        self.requests.append((request.path, dict(request.query)))
        await self._open.wait()
        if self.hang:
            await self._closing.wait()
        if self.fail_status is not None:
            return web.json_response(
                {"error": True, "reason": "scripted failure"}, status=self.fail_status
            )
        return None

    async def _search(self, request: web.Request) -> web.Response:
        failure = await self._misbehave(request)
        if failure is not None:
            return failure
        name = request.query.get("name", "").strip()
        language = request.query.get("language", "en")
        count = int(request.query.get("count", "10"))
        found = [p for p in self.places if p.matches(name, language)]
        found.sort(key=lambda p: -p.population)
        body: dict[str, Any] = {"generationtime_ms": 0.5}
        if found:
            body["results"] = [p.result(language, i + 1) for i, p in enumerate(found[:count])]
        return web.json_response(body)

    async def _forecast(self, request: web.Request) -> web.Response:
        failure = await self._misbehave(request)
        if failure is not None:
            return failure
        days = int(request.query.get("forecast_days", "7"))
        timezone = request.query.get("timezone", "GMT")
        dates = [self.today + timedelta(days=n) for n in range(days)]
        hourly: dict[str, list[Any]] = {
            "time": [],
            "temperature_2m": [],
            "weather_code": [],
            "precipitation_probability": [],
            "relative_humidity_2m": [],
            "wind_speed_10m": [],
        }
        daily: dict[str, list[Any]] = {
            "time": [d.isoformat() for d in dates],
            "weather_code": [],
            "temperature_2m_max": [],
            "temperature_2m_min": [],
            "wind_speed_10m_max": [],
        }
        for day in dates:
            weather = self.days.get(day, self.default_day)
            for hour in range(24):
                # 0 at 02:00 (coldest), 1 at 14:00 (warmest).
                swing = (1 - math.cos((hour - 2) / 24 * 2 * math.pi)) / 2
                daytime = 6 <= hour < 18
                hourly["time"].append(datetime(day.year, day.month, day.day, hour).isoformat()[:16])
                hourly["temperature_2m"].append(
                    round(
                        weather.temperature_min
                        + swing * (weather.temperature_max - weather.temperature_min),
                        1,
                    )
                )
                hourly["weather_code"].append(weather.weather_code if daytime else 1)
                hourly["precipitation_probability"].append(weather.rain[hour // 6])
                hourly["relative_humidity_2m"].append(
                    weather.humidity if daytime else min(100, weather.humidity + 10)
                )
                hourly["wind_speed_10m"].append(
                    weather.wind_max if hour == 14 else round(weather.wind_max * 0.6, 1)
                )
            daily["weather_code"].append(weather.weather_code)
            daily["temperature_2m_max"].append(weather.temperature_max)
            daily["temperature_2m_min"].append(weather.temperature_min)
            daily["wind_speed_10m_max"].append(weather.wind_max)
        return web.json_response(
            {
                "latitude": float(request.query.get("latitude", "0")),
                "longitude": float(request.query.get("longitude", "0")),
                "generationtime_ms": 0.3,
                "utc_offset_seconds": 32400 if timezone == "Asia/Tokyo" else 0,
                "timezone": timezone,
                "timezone_abbreviation": "JST" if timezone == "Asia/Tokyo" else "GMT",
                "elevation": 40.0,
                "hourly_units": {
                    "time": "iso8601",
                    "temperature_2m": "°C",
                    "weather_code": "wmo code",
                    "precipitation_probability": "%",
                    "relative_humidity_2m": "%",
                    "wind_speed_10m": "m/s",
                },
                "hourly": hourly,
                "daily_units": {
                    "time": "iso8601",
                    "weather_code": "wmo code",
                    "temperature_2m_max": "°C",
                    "temperature_2m_min": "°C",
                    "wind_speed_10m_max": "m/s",
                },
                "daily": daily,
            }
        )
