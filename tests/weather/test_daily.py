"""The daily weather post: its content and its failures (its schedule: tests/servers)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest

from bot.runtime.clock import ManualClock
from bot.runtime.send_failures import PermanentSendError, RetryableSendError
from bot.settings import Settings
from bot.weather.daily import (
    DailyWeatherJob,
    DailyWeatherReport,
    build_daily_report,
)
from bot.weather.service import WeatherService
from tests.fakes.open_meteo import DayWeather, FakeOpenMeteo
from tests.weather.conftest import NOW, TOMORROW

TOKYO = ZoneInfo("Asia/Tokyo")


class Channel:
    """Records what the job posts; can be told to fail like Discord would."""

    def __init__(self, error: Exception | None = None) -> None:
        self.posted: list[DailyWeatherReport] = []
        self.error = error

    async def post(self, report: DailyWeatherReport) -> None:
        if self.error is not None:
            raise self.error
        self.posted.append(report)


async def test_the_report_describes_tomorrow_at_the_default_place(
    service: WeatherService, fake: FakeOpenMeteo
) -> None:
    fake.set_day(
        TOMORROW,
        DayWeather(
            weather_code=2,
            temperature_max=16.4,
            temperature_min=8.2,
            rain=(0, 10, 20, 40),
            humidity=50,
            wind_max=4.0,
        ),
    )
    report = await build_daily_report(service, NOW)
    assert report.date == TOMORROW
    assert report.title == "明日 11月30日(日) 東京の天気"
    assert report.emoji == "⛅"
    assert report.lines == (
        "天気: 晴れ時々曇り",
        "気温: 最高 16℃ / 最低 8℃",
        "降水確率: 午前 10% / 午後 20% / 夜 40%",
        "湿度: 55%",
        "風: 最大 4m/s",
    )
    assert report.laundry_advice.startswith(f"洗濯指数 {report.laundry_index}: 洗濯日和")
    assert report.umbrella_advice == "折りたたみ傘があると安心"
    assert report.as_text().splitlines()[0] == "⛅ 明日 11月30日(日) 東京の天気"


async def test_an_english_report_names_the_place_in_english(service: WeatherService) -> None:
    report = await build_daily_report(service, NOW, "Tokyo", language="en")

    assert report.place == "Tokyo"
    assert report.title.startswith("Weather in Tokyo, tomorrow")
    assert "東京" not in report.as_text()


async def test_an_english_report_names_a_prefecture_in_english(service: WeatherService) -> None:
    report = await build_daily_report(service, NOW, "神奈川県", language="en")

    assert report.place == "Yokohama (Kanagawa)"


async def test_a_japanese_report_names_the_place_in_japanese(service: WeatherService) -> None:
    report = await build_daily_report(service, NOW, "Kanagawa", language="ja")

    assert report.place == "横浜（神奈川県）"


async def test_tomorrow_is_counted_in_the_places_time_zone(
    settings: Settings, fake: FakeOpenMeteo
) -> None:
    # 21:00 UTC on the 29th is 06:00 on the 30th in Tokyo: tomorrow is December 1st.
    clock = ManualClock(datetime(2025, 11, 29, 21, 0, tzinfo=UTC))
    fake.today = date(2025, 11, 30)
    async with WeatherService(settings, clock) as weather:
        report = await DailyWeatherJob(weather, Channel().post, clock).run()
    assert report is not None
    assert report.date == date(2025, 12, 1)


async def test_the_job_posts_the_report_through_the_injected_callable(
    service: WeatherService, clock: ManualClock
) -> None:
    channel = Channel()
    report = await DailyWeatherJob(service, channel.post, clock).run()
    assert channel.posted == [report]


async def test_the_job_posts_nothing_when_the_provider_is_down(
    service: WeatherService,
    fake: FakeOpenMeteo,
    clock: ManualClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake.fail_status = 500
    channel = Channel()
    assert await DailyWeatherJob(service, channel.post, clock).run() is None
    assert channel.posted == []
    assert "daily weather skipped" in caplog.text


@pytest.mark.parametrize(
    ("error", "level", "hint"),
    [
        (RetryableSendError("503 from Discord"), "WARNING", "may recover"),
        (PermanentSendError("Missing Access"), "ERROR", "WEATHER_NOTIFY_CHANNEL_ID"),
    ],
)
async def test_a_failed_post_is_logged_never_raised(
    service: WeatherService,
    clock: ManualClock,
    caplog: pytest.LogCaptureFixture,
    error: Exception,
    level: str,
    hint: str,
) -> None:
    result = await DailyWeatherJob(service, Channel(error).post, clock).run()
    assert result is None
    record = next(r for r in caplog.records if "daily weather not posted" in r.getMessage())
    assert record.levelname == level
    assert hint in record.getMessage()
