"""The daily weather post: tomorrow's forecast for a server's place (due per server as
due.py says, run by bot/servers/posts.py)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from bot.i18n import Language, posts
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
    language: Language = "ja"

    def as_text(self) -> str:
        """The report as plain text (console mode, or a fallback when embeds are not allowed)."""
        return "\n".join((f"{self.emoji} {self.title}", *self.lines, self.laundry_advice))


PostReport = Callable[[DailyWeatherReport], Awaitable[None]]


def _degrees(value: float | None) -> str:
    return "—" if value is None else f"{value:.0f}℃"


def _percent(value: int | None) -> str:
    return "—" if value is None else f"{value}%"


def day_label(day: date, today: date, language: Language) -> str:
    """今日 / 明日 / 12月3日(水) in Japanese; today / tomorrow / Thu 3 Dec in English."""
    if language == "ja":
        return day_label_ja(day, today)
    named = {0: "today", 1: "tomorrow"}.get((day - today).days)
    dated = f"{day:%a} {day.day} {day:%b}"
    return f"{named}, {dated}" if named else dated


def report_from_forecast(
    forecast: Forecast, today: date, language: Language = "ja"
) -> DailyWeatherReport:
    """Lay out one forecast as the daily post's title, lines and advice, in one language."""
    rain = forecast.rain_chance
    laundry = forecast.laundry
    japanese = language == "ja"
    lines = [
        posts.WEATHER_CONDITIONS(
            language, conditions=forecast.conditions.ja if japanese else forecast.conditions.en
        ),
        posts.WEATHER_TEMPERATURES(
            language,
            high=_degrees(forecast.temperature_max_c),
            low=_degrees(forecast.temperature_min_c),
        ),
        posts.WEATHER_RAIN(
            language,
            morning=_percent(rain.morning),
            afternoon=_percent(rain.afternoon),
            evening=_percent(rain.evening),
        ),
    ]
    if forecast.humidity_mean_percent is not None:
        lines.append(posts.WEATHER_HUMIDITY(language, percent=forecast.humidity_mean_percent))
    if forecast.wind_max_m_s is not None:
        lines.append(posts.WEATHER_WIND(language, speed=f"{forecast.wind_max_m_s:.0f}"))
    advice = posts.LAUNDRY_ADVICE(
        language, index=laundry.index, advice=laundry.ja if japanese else laundry.en
    )
    note = laundry.note_ja if japanese else laundry.note_en
    if note:
        advice += posts.LAUNDRY_NOTE(language, note=note)
    place = forecast.place.label(language)
    return DailyWeatherReport(
        place=place,
        date=forecast.date,
        title=posts.WEATHER_TITLE(
            language, day=day_label(forecast.date, today, language), place=place
        ),
        emoji=forecast.conditions.emoji,
        lines=tuple(lines),
        laundry_index=laundry.index,
        laundry_advice=advice,
        umbrella_advice=forecast.umbrella.ja if japanese else forecast.umbrella.en,
        language=language,
    )


async def build_daily_report(
    service: WeatherService, now: datetime, place_name: str | None = None, language: Language = "ja"
) -> DailyWeatherReport:
    """Tomorrow's report for a place (the default place when None), 'tomorrow' being in that
    place's time zone, in the language of the post."""
    place = await service.resolve_place(place_name)
    today = now.astimezone(service.zone_of(place)).date()
    forecast = await service.get_forecast(place_name, today + timedelta(days=1))
    return report_from_forecast(forecast, today, language)


class DailyWeatherJob:
    """Builds and posts the report; failures are logged, never raised into the scheduler."""

    def __init__(
        self,
        service: WeatherService,
        post: PostReport,
        clock: Clock,
        place: str | None = None,
        language: Language = "ja",
    ) -> None:
        self._service = service
        self._post = post
        self._clock = clock
        self._place = place
        self._language = language

    async def run(self) -> DailyWeatherReport | None:
        """Post tomorrow's report; return it, or None when nothing could be posted."""
        try:
            report = await build_daily_report(
                self._service, self._clock.now(), self._place, self._language
            )
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
