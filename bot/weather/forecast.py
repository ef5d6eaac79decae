"""One day's forecast at one place, computed from an Open-Meteo response."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from statistics import fmean

from pydantic import BaseModel, ConfigDict, Field

from bot.weather.advice import LaundryAdvice, UmbrellaAdvice, laundry_advice, umbrella_advice
from bot.weather.conditions import Conditions, conditions_for
from bot.weather.errors import InvalidDayError
from bot.weather.places import Place

FORECAST_DAYS = 7  # days requested from Open-Meteo, today included (it offers up to 16)
# Parts of the day, as Japanese forecasts split them: [start hour, end hour).
MORNING = (6, 12)
AFTERNOON = (12, 18)
EVENING = (18, 24)
DAYTIME = (6, 18)  # the hours laundry hangs outside

_DAY_WORDS: dict[str, int] = {
    "today": 0,
    "今日": 0,
    "きょう": 0,
    "本日": 0,
    "tomorrow": 1,
    "明日": 1,
    "あした": 1,
    "あす": 1,
    "day after tomorrow": 2,
    "the day after tomorrow": 2,
    "明後日": 2,
    "あさって": 2,
}
_WEEKDAYS_JA = "月火水木金土日"


class RainChance(BaseModel):
    """Highest precipitation probability (%) in each part of the day; None when unknown."""

    model_config = ConfigDict(frozen=True)

    morning: int | None = Field(description="06:00-12:00")
    afternoon: int | None = Field(description="12:00-18:00")
    evening: int | None = Field(description="18:00-24:00")

    @property
    def highest(self) -> int | None:
        """The highest of the three, or None when all are unknown."""
        values = [v for v in (self.morning, self.afternoon, self.evening) if v is not None]
        return max(values) if values else None


class Forecast(BaseModel):
    """Everything the bot says about one day at one place."""

    model_config = ConfigDict(frozen=True)

    place: Place
    date: date
    conditions: Conditions
    temperature_max_c: float | None
    temperature_min_c: float | None
    rain_chance: RainChance
    humidity_mean_percent: int | None
    wind_max_m_s: float | None
    laundry: LaundryAdvice
    umbrella: UmbrellaAdvice


class _Hourly(BaseModel):
    time: list[datetime]
    weather_code: list[int | None] = []
    precipitation_probability: list[float | None] = []
    relative_humidity_2m: list[float | None] = []
    wind_speed_10m: list[float | None] = []


class _Daily(BaseModel):
    time: list[date]
    weather_code: list[int | None] = []
    temperature_2m_max: list[float | None] = []
    temperature_2m_min: list[float | None] = []
    wind_speed_10m_max: list[float | None] = []


class ForecastResponse(BaseModel):
    """The parts of Open-Meteo's /forecast answer we use (times are local to `timezone`)."""

    timezone: str
    hourly: _Hourly
    daily: _Daily

    def dates(self) -> list[date]:
        """The days this response covers."""
        return list(self.daily.time)


def resolve_day(day: str | date, today: date, days: int = FORECAST_DAYS) -> date:
    """Turn today / tomorrow / day after tomorrow (or 今日/明日/明後日) or YYYY-MM-DD into a date.

    Raises InvalidDayError when the text is none of those or the date is outside the forecast.
    """
    if isinstance(day, date):
        target = day
    else:
        text = re.sub(r"[\s_-]+", " ", day.strip().lower())
        if text in _DAY_WORDS:
            target = today + timedelta(days=_DAY_WORDS[text])
        else:
            try:
                target = date.fromisoformat(day.strip())
            except ValueError:
                raise InvalidDayError(
                    f"day {day!r} is not understood: use today, tomorrow, day after tomorrow "
                    "or a date written YYYY-MM-DD"
                ) from None
    last = today + timedelta(days=days - 1)
    if not today <= target <= last:
        raise InvalidDayError(
            f"the forecast covers {today.isoformat()} to {last.isoformat()} only; "
            f"{target.isoformat()} is outside it, so tell the user no forecast exists for that day"
        )
    return target


def day_label_ja(day: date, today: date) -> str:
    """今日 / 明日 / 明後日, or 12月3日(水) for later days."""
    offset = (day - today).days
    named = {0: "今日", 1: "明日", 2: "明後日"}.get(offset)
    dated = f"{day.month}月{day.day}日({_WEEKDAYS_JA[day.weekday()]})"
    return f"{named} {dated}" if named else dated


def _values(
    hours: list[int], series: Sequence[float | None], indexes: list[int]
) -> dict[int, float]:
    return {
        hours[n]: float(value)
        for n, i in enumerate(indexes)
        if i < len(series) and (value := series[i]) is not None
    }


def _in(values: dict[int, float], span: tuple[int, int]) -> list[float]:
    return [v for hour, v in values.items() if span[0] <= hour < span[1]]


def _highest(values: dict[int, float], span: tuple[int, int]) -> int | None:
    chosen = _in(values, span)
    return round(max(chosen)) if chosen else None


def _pick(series: Sequence[float | None], index: int) -> float | None:
    return series[index] if index < len(series) else None


def day_forecast(response: ForecastResponse, place: Place, day: date) -> Forecast:
    """Summarise one day of the response: parts-of-day rain chance, humidity, wind, advice."""
    if day not in response.daily.time:
        first, last = response.daily.time[0], response.daily.time[-1]
        raise InvalidDayError(
            f"the forecast covers {first.isoformat()} to {last.isoformat()} only; "
            f"{day.isoformat()} is outside it, so tell the user no forecast exists for that day"
        )
    d = response.daily.time.index(day)
    hourly = response.hourly
    indexes = [i for i, t in enumerate(hourly.time) if t.date() == day]
    hours = [hourly.time[i].hour for i in indexes]
    rain = _values(hours, hourly.precipitation_probability, indexes)
    humidity = _values(hours, hourly.relative_humidity_2m, indexes)
    wind = _values(hours, hourly.wind_speed_10m, indexes)

    code = _pick(response.daily.weather_code, d)
    if code is None:
        # Without a daily code, the worst daytime hour describes the day best.
        codes = _values(hours, hourly.weather_code, indexes)
        code = max(_in(codes, DAYTIME), default=3)
    conditions = conditions_for(int(code))
    wind_max = _pick(response.daily.wind_speed_10m_max, d)
    if wind_max is None and wind:
        wind_max = max(wind.values())
    chance = RainChance(
        morning=_highest(rain, MORNING),
        afternoon=_highest(rain, AFTERNOON),
        evening=_highest(rain, EVENING),
    )
    daytime_rain = [v for v in (chance.morning, chance.afternoon) if v is not None]
    daytime_humidity = _in(humidity, DAYTIME)
    temperature_max = _pick(response.daily.temperature_2m_max, d)
    return Forecast(
        place=place,
        date=day,
        conditions=conditions,
        temperature_max_c=temperature_max,
        temperature_min_c=_pick(response.daily.temperature_2m_min, d),
        rain_chance=chance,
        humidity_mean_percent=round(fmean(humidity.values())) if humidity else None,
        wind_max_m_s=round(wind_max, 1) if wind_max is not None else None,
        laundry=laundry_advice(
            conditions,
            max(daytime_rain) if daytime_rain else None,
            fmean(daytime_humidity) if daytime_humidity else None,
            wind_max,
            temperature_max,
        ),
        umbrella=umbrella_advice(conditions, chance.highest),
    )
