"""Fixtures: a fake Open-Meteo on 127.0.0.1, a manual clock and a service wired to both."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, date, datetime

import pytest

from bot.runtime.clock import ManualClock
from bot.settings import Settings
from bot.weather.service import WeatherService
from tests.fakes.open_meteo import FakeOpenMeteo

# 12:00 in Tokyo on Saturday 2025-11-29.
NOW = datetime(2025, 11, 29, 3, 0, tzinfo=UTC)
TODAY = date(2025, 11, 29)
TOMORROW = date(2025, 11, 30)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(NOW)


@pytest.fixture
async def fake() -> AsyncIterator[FakeOpenMeteo]:
    async with FakeOpenMeteo(today=TODAY) as server:
        yield server


@pytest.fixture
def settings(fake: FakeOpenMeteo) -> Settings:
    return Settings(
        weather_api_base=fake.api_base,
        geocoding_api_base=fake.api_base,
        weather_default_place="東京",
    )


@pytest.fixture
async def service(settings: Settings, clock: ManualClock) -> AsyncIterator[WeatherService]:
    async with WeatherService(settings, clock, timeout=2.0) as weather:
        yield weather
