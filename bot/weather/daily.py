"""The daily weather post: tomorrow's forecast for a server's place (scheduled per server by
bot/servers/posts.py)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from bot.runtime.clock import Clock
from bot.runtime.send_failures import post_scheduled
from bot.settings import Settings
from bot.weather.errors import WeatherError
from bot.weather.forecast import Forecast, day_label_ja
from bot.weather.service import WeatherService

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DailyWeatherReport:
    """Tomorrow's weather as plain data; the Discord layer renders it as an embed."""

    place: str
    date: date
    title: str
    emoji: str
    lines: tuple[str, ...]
    laundry_index: int
    laundry_advice: str
    umbrella_advice: str

    def as_text(self) -> str:
        """The report as plain text (console mode, or a fallback when embeds are not allowed)."""
        return "\n".join((f"{self.emoji} {self.title}", *self.lines, self.laundry_advice))


PostReport = Callable[[DailyWeatherReport], Awaitable[None]]


def _degrees(value: float | None) -> str:
    return "—" if value is None else f"{value:.0f}℃"


def _percent(value: int | None) -> str:
    return "—" if value is None else f"{value}%"


def report_from_forecast(forecast: Forecast, today: date) -> DailyWeatherReport:
    """Lay out one forecast as the daily post's title, lines and advice."""
    rain = forecast.rain_chance
    laundry = forecast.laundry
    lines = [
        f"天気: {forecast.conditions.ja}",
        f"気温: 最高 {_degrees(forecast.temperature_max_c)} / "
        f"最低 {_degrees(forecast.temperature_min_c)}",
        f"降水確率: 午前 {_percent(rain.morning)} / 午後 {_percent(rain.afternoon)} / "
        f"夜 {_percent(rain.evening)}",
    ]
    if forecast.humidity_mean_percent is not None:
        lines.append(f"湿度: {forecast.humidity_mean_percent}%")
    if forecast.wind_max_m_s is not None:
        lines.append(f"風: 最大 {forecast.wind_max_m_s:.0f}m/s")
    advice = f"洗濯指数 {laundry.index}: {laundry.ja}"
    if laundry.note_ja:
        advice += f"（{laundry.note_ja}）"
    return DailyWeatherReport(
        place=forecast.place.label(),
        date=forecast.date,
        title=f"{day_label_ja(forecast.date, today)} {forecast.place.label()}の天気",
        emoji=forecast.conditions.emoji,
        lines=tuple(lines),
        laundry_index=laundry.index,
        laundry_advice=advice,
        umbrella_advice=forecast.umbrella.ja,
    )


async def build_daily_report(
    service: WeatherService, now: datetime, place_name: str | None = None
) -> DailyWeatherReport:
    """Tomorrow's report for a place (the default place when None), 'tomorrow' being in that
    place's time zone."""
    place = await service.resolve_place(place_name)
    today = now.astimezone(service.zone_of(place)).date()
    forecast = await service.get_forecast(place_name, today + timedelta(days=1))
    return report_from_forecast(forecast, today)


class DailyWeatherJob:
    """Builds and posts the report; failures are logged, never raised into the scheduler."""

    def __init__(
        self, service: WeatherService, post: PostReport, clock: Clock, place: str | None = None
    ) -> None:
        self._service = service
        self._post = post
        self._clock = clock
        self._place = place

    async def run(self) -> DailyWeatherReport | None:
        """Post tomorrow's report; return it, or None when nothing could be posted."""
        try:
            report = await build_daily_report(self._service, self._clock.now(), self._place)
        except WeatherError as exc:
            log.warning("daily weather skipped: %s", getattr(exc, "detail", exc))
            return None
        posted = await post_scheduled(
            "daily weather",
            lambda: self._post(report),
            "Check the weather channel (/otomo settings, or WEATHER_NOTIFY_CHANNEL_ID) and that "
            "the bot may send messages and embeds in that channel.",
        )
        return report if posted else None


def half_configured(settings: Settings) -> str | None:
    """The missing setting when only one of channel and time is set, else None."""
    has_channel = settings.weather_notify_channel_id is not None
    has_time = settings.weather_notify_time is not None
    if has_channel == has_time:
        return None
    return "WEATHER_NOTIFY_CHANNEL_ID" if has_time else "WEATHER_NOTIFY_TIME"


def warn_if_half_configured(settings: Settings) -> None:
    """Say at start which of the default daily post's two settings is missing, if one is."""
    missing = half_configured(settings)
    if missing is not None:
        log.warning(
            "daily weather post is off: %s is not set. Set both WEATHER_NOTIFY_TIME "
            "(e.g. 07:00) and WEATHER_NOTIFY_CHANNEL_ID to turn it on, or neither.",
            missing,
        )
