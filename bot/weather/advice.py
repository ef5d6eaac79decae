"""Laundry and umbrella advice computed from one day's forecast figures."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from bot.weather.conditions import Conditions, Sky

# Starting score by sky family, before rain chance, humidity, wind and warmth adjust it.
_BASE_SCORE: dict[Sky, float] = {
    Sky.CLEAR: 100,
    Sky.PARTLY_CLOUDY: 90,
    Sky.OVERCAST: 70,
    Sky.FOG: 55,
    Sky.DRIZZLE: 40,
    Sky.RAIN: 20,
    Sky.SNOW: 20,
    Sky.THUNDER: 20,
}
# Whatever the other figures say, a wet day cannot score above these.
_WET_CAP: dict[Sky, float] = {Sky.DRIZZLE: 25, Sky.RAIN: 10, Sky.SNOW: 10, Sky.THUNDER: 5}
RAIN_WEIGHT = 0.5  # points lost per % of daytime rain chance
HUMIDITY_FREE = 55  # % of daytime humidity that costs nothing
HUMIDITY_WEIGHT = 1.5  # points lost per % above HUMIDITY_FREE
BREEZE_POINTS_PER_MS = 2  # a breeze dries faster ...
BREEZE_MAX_MS = 5  # ... up to this speed
STRONG_WIND_MS = 10  # from here laundry blows off the line
STRONG_WIND_CAP = 50
WARMTH_REFERENCE_C = 18  # each °C of the day's high above or below this adds or costs a point
WARMTH_MIN, WARMTH_MAX = -10, 5

UMBRELLA_TAKE = 50  # % rain chance from which an umbrella is advised
UMBRELLA_FOLDING = 30


class LaundryLevel(StrEnum):
    """The four advice words, best first."""

    GREAT = "洗濯日和"
    OUTDOORS_OK = "外干しOK"
    INDOORS = "部屋干し推奨"
    SKIP = "洗濯は見送り"


_LEVELS: tuple[tuple[int, LaundryLevel, str], ...] = (
    (80, LaundryLevel.GREAT, "a perfect day for laundry"),
    (55, LaundryLevel.OUTDOORS_OK, "fine to dry laundry outside"),
    (30, LaundryLevel.INDOORS, "better to dry laundry indoors"),
    (0, LaundryLevel.SKIP, "better to skip the laundry"),
)


class LaundryAdvice(BaseModel):
    """The laundry index (0-100), its advice words and an optional warning."""

    model_config = ConfigDict(frozen=True)

    index: int
    level: LaundryLevel
    ja: str
    en: str
    note_ja: str | None = None
    note_en: str | None = None


class UmbrellaAdvice(BaseModel):
    """Whether to take an umbrella: take, folding (just in case) or none."""

    model_config = ConfigDict(frozen=True)

    need: str
    ja: str
    en: str


def laundry_advice(
    conditions: Conditions,
    daytime_rain_chance: float | None,
    daytime_humidity: float | None,
    wind_max: float | None,
    temperature_max: float | None,
) -> LaundryAdvice:
    """Score drying conditions 0-100 and name the advice.

    index = base by sky (clear 100, partly cloudy 90, overcast 70, fog 55, drizzle 40,
            rain/snow/thunder 20)
          - 0.5 x daytime (6-18h) rain chance in %
          - 1.5 x each % of daytime mean humidity above 55
          + 2 x wind in m/s, at most +10 (a breeze dries)
          + (day's high - 18 °C), between -10 and +5 (warmth dries)
    then capped: drizzle 25, rain or snow 10, thunderstorm 5, wind of 10 m/s or more 50
    (laundry blows off the line), and clamped to 0-100.
    Advice: 80+ 洗濯日和, 55+ 外干しOK, 30+ 部屋干し推奨, below 洗濯は見送り.
    """
    score = _BASE_SCORE[conditions.sky]
    score -= RAIN_WEIGHT * (daytime_rain_chance or 0)
    if daytime_humidity is not None:
        score -= HUMIDITY_WEIGHT * max(0.0, daytime_humidity - HUMIDITY_FREE)
    wind = wind_max or 0.0
    score += BREEZE_POINTS_PER_MS * min(wind, BREEZE_MAX_MS)
    if temperature_max is not None:
        score += min(WARMTH_MAX, max(WARMTH_MIN, temperature_max - WARMTH_REFERENCE_C))
    if conditions.sky in _WET_CAP:
        score = min(score, _WET_CAP[conditions.sky])
    note_ja = note_en = None
    if wind >= STRONG_WIND_MS:
        score = min(score, STRONG_WIND_CAP)
        note_ja = f"風が強い（最大{wind:.0f}m/s）ので洗濯物が飛ばされないように注意"
        note_en = f"strong wind (up to {wind:.0f} m/s): make sure the laundry cannot blow away"
    index = round(min(100.0, max(0.0, score)))
    threshold_level = next(item for item in _LEVELS if index >= item[0])
    _, level, english = threshold_level
    return LaundryAdvice(
        index=index, level=level, ja=level.value, en=english, note_ja=note_ja, note_en=note_en
    )


def umbrella_advice(conditions: Conditions, rain_chance: float | None) -> UmbrellaAdvice:
    """Advise an umbrella from the day's highest rain chance (or a wet weather code)."""
    chance = rain_chance or 0
    if chance >= UMBRELLA_TAKE or (conditions.is_wet and chance >= UMBRELLA_FOLDING):
        return UmbrellaAdvice(need="take", ja="傘を持って出かけましょう", en="take an umbrella")
    if chance >= UMBRELLA_FOLDING or conditions.is_wet:
        return UmbrellaAdvice(
            need="folding", ja="折りたたみ傘があると安心", en="a folding umbrella, just in case"
        )
    return UmbrellaAdvice(need="none", ja="傘はいらなさそう", en="no umbrella needed")
