"""Forecasts from the fake Open-Meteo: parsing, parts of the day, days, caching and failures."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from bot.runtime.clock import ManualClock
from bot.settings import Settings
from bot.weather.advice import LaundryLevel
from bot.weather.errors import InvalidDayError, WeatherUnavailableError
from bot.weather.forecast import day_label_ja, resolve_day
from bot.weather.service import WeatherService
from tests.fakes.open_meteo import DayWeather, FakeOpenMeteo
from tests.weather.conftest import TODAY, TOMORROW


async def test_a_forecast_summarises_the_day_from_hourly_and_daily_data(
    service: WeatherService, fake: FakeOpenMeteo
) -> None:
    fake.set_day(
        TOMORROW,
        DayWeather(
            weather_code=61,
            temperature_max=14.4,
            temperature_min=7.6,
            rain=(90, 20, 60, 80),
            humidity=70,
            wind_max=6.5,
        ),
    )
    forecast = await service.get_forecast("東京", "tomorrow")
    assert forecast.date == TOMORROW
    assert forecast.place.name == "東京"
    assert (forecast.conditions.ja, forecast.conditions.en) == ("小雨", "light rain")
    assert (forecast.temperature_max_c, forecast.temperature_min_c) == (14.4, 7.6)
    # The night's 90 % (00-06) belongs to no part of the day.
    rain = forecast.rain_chance
    assert (rain.morning, rain.afternoon, rain.evening) == (20, 60, 80)
    assert rain.highest == 80
    # 12 daytime hours at 70 % and 12 night hours at 80 %.
    assert forecast.humidity_mean_percent == 75
    assert forecast.wind_max_m_s == 6.5
    assert forecast.laundry.level is LaundryLevel.SKIP
    assert forecast.umbrella.need == "take"


async def test_the_request_asks_for_local_time_metres_per_second_and_a_week(
    service: WeatherService, fake: FakeOpenMeteo
) -> None:
    await service.get_forecast("大阪", "today")
    query = fake.requests[-1][1]
    assert query["timezone"] == "Asia/Tokyo"
    assert query["wind_speed_unit"] == "ms"
    assert query["forecast_days"] == "7"
    assert (float(query["latitude"]), float(query["longitude"])) == pytest.approx(
        (34.6937, 135.5023)
    )
    assert "precipitation_probability" in query["hourly"]


@pytest.mark.parametrize(
    ("day", "expected"),
    [
        ("today", TODAY),
        ("Tomorrow", TOMORROW),
        ("day after tomorrow", TODAY + timedelta(days=2)),
        ("day_after_tomorrow", TODAY + timedelta(days=2)),
        ("今日", TODAY),
        ("明日", TOMORROW),
        ("あさって", TODAY + timedelta(days=2)),
        ("2025-12-05", date(2025, 12, 5)),
        (date(2025, 12, 1), date(2025, 12, 1)),
    ],
)
def test_days_are_words_or_iso_dates(day: str | date, expected: date) -> None:
    assert resolve_day(day, TODAY) == expected


@pytest.mark.parametrize("day", ["2025-12-06", "2025-11-28", "next year"])
def test_days_outside_the_forecast_or_not_understood_are_refused(day: str) -> None:
    with pytest.raises(InvalidDayError) as caught:
        resolve_day(day, TODAY)
    assert "2025-11-29" in str(caught.value) or "YYYY-MM-DD" in str(caught.value)


def test_day_labels_name_the_near_days_in_japanese() -> None:
    assert day_label_ja(TODAY, TODAY) == "今日 11月29日(土)"
    assert day_label_ja(TOMORROW, TODAY) == "明日 11月30日(日)"
    assert day_label_ja(date(2025, 12, 3), TODAY) == "12月3日(水)"


async def test_today_is_the_date_at_the_place_not_in_utc(
    service: WeatherService, clock: ManualClock, fake: FakeOpenMeteo
) -> None:
    # 23:30 UTC on the 29th is already 08:30 on the 30th in Tokyo.
    clock.advance(timedelta(hours=20, minutes=30))
    fake.today = TOMORROW
    forecast = await service.get_forecast("東京", "today")
    assert forecast.date == TOMORROW


async def test_forecasts_are_cached_for_ten_minutes(
    service: WeatherService, fake: FakeOpenMeteo, clock: ManualClock
) -> None:
    await service.get_forecast("東京", "today")
    await service.get_forecast("東京都", "tomorrow")
    await service.get_forecast(None, "2025-12-01")
    assert fake.count("/v1/forecast") == 1
    clock.advance(timedelta(minutes=9))
    await service.get_forecast("東京", "today")
    assert fake.count("/v1/forecast") == 1
    clock.advance(timedelta(minutes=2))
    await service.get_forecast("東京", "today")
    assert fake.count("/v1/forecast") == 2
    await service.get_forecast("大阪", "today")
    assert fake.count("/v1/forecast") == 3


async def test_a_provider_error_becomes_a_sentence_for_the_user(
    service: WeatherService, fake: FakeOpenMeteo
) -> None:
    fake.fail_status = 500
    with pytest.raises(WeatherUnavailableError) as caught:
        await service.get_forecast("東京", "today")
    assert "try again" in str(caught.value)
    assert "500" not in str(caught.value)
    assert "500" in caught.value.detail


async def test_a_provider_that_hangs_times_out(
    settings: Settings, clock: ManualClock, fake: FakeOpenMeteo
) -> None:
    fake.hang = True
    async with WeatherService(settings, clock, timeout=0.2) as impatient:
        with pytest.raises(WeatherUnavailableError) as caught:
            await impatient.get_forecast("軽井沢", "today")
    assert "timeout" in caught.value.detail


async def test_an_unreachable_provider_is_unavailable(
    clock: ManualClock,
) -> None:
    # Port 9 on 127.0.0.1 (discard) has nothing listening in the test environment.
    settings = Settings(weather_api_base="http://127.0.0.1:9/v1")
    async with WeatherService(settings, clock, timeout=2.0) as weather:
        with pytest.raises(WeatherUnavailableError):
            await weather.get_forecast("東京", "today")


async def test_a_failed_request_is_not_cached(service: WeatherService, fake: FakeOpenMeteo) -> None:
    fake.fail_status = 503
    with pytest.raises(WeatherUnavailableError):
        await service.get_forecast("東京", "today")
    fake.fail_status = None
    forecast = await service.get_forecast("東京", "today")
    assert forecast.date == TODAY
