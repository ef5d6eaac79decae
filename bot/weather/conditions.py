"""WMO weather interpretation codes (as Open-Meteo reports them) in Japanese and English words."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict


class Sky(StrEnum):
    """Coarse families of weather codes; the laundry index caps depend on them."""

    CLEAR = "clear"
    PARTLY_CLOUDY = "partly_cloudy"
    OVERCAST = "overcast"
    FOG = "fog"
    DRIZZLE = "drizzle"
    RAIN = "rain"
    SNOW = "snow"
    THUNDER = "thunder"


class Conditions(BaseModel):
    """One day's weather code with its words."""

    model_config = ConfigDict(frozen=True)

    code: int
    ja: str
    en: str
    emoji: str
    sky: Sky

    @property
    def is_wet(self) -> bool:
        """Whether something falls from the sky (drizzle, rain, snow or a thunderstorm)."""
        return self.sky in {Sky.DRIZZLE, Sky.RAIN, Sky.SNOW, Sky.THUNDER}


# code: (Japanese, English, emoji, family) — WMO 4677 codes used by Open-Meteo.
_CODES: dict[int, tuple[str, str, str, Sky]] = {
    0: ("快晴", "clear sky", "☀️", Sky.CLEAR),
    1: ("晴れ", "mainly clear", "🌤️", Sky.CLEAR),
    2: ("晴れ時々曇り", "partly cloudy", "⛅", Sky.PARTLY_CLOUDY),
    3: ("曇り", "overcast", "☁️", Sky.OVERCAST),
    45: ("霧", "fog", "🌫️", Sky.FOG),
    48: ("着氷性の霧", "depositing rime fog", "🌫️", Sky.FOG),
    51: ("弱い霧雨", "light drizzle", "🌦️", Sky.DRIZZLE),
    53: ("霧雨", "drizzle", "🌦️", Sky.DRIZZLE),
    55: ("強い霧雨", "dense drizzle", "🌧️", Sky.DRIZZLE),
    56: ("弱い着氷性の霧雨", "light freezing drizzle", "🌧️", Sky.DRIZZLE),
    57: ("着氷性の霧雨", "freezing drizzle", "🌧️", Sky.DRIZZLE),
    61: ("小雨", "light rain", "🌦️", Sky.RAIN),
    63: ("雨", "rain", "🌧️", Sky.RAIN),
    65: ("大雨", "heavy rain", "🌧️", Sky.RAIN),
    66: ("弱い着氷性の雨", "light freezing rain", "🌧️", Sky.RAIN),
    67: ("着氷性の雨", "freezing rain", "🌧️", Sky.RAIN),
    71: ("小雪", "light snow", "🌨️", Sky.SNOW),
    73: ("雪", "snow", "🌨️", Sky.SNOW),
    75: ("大雪", "heavy snow", "❄️", Sky.SNOW),
    77: ("霧雪", "snow grains", "🌨️", Sky.SNOW),
    80: ("にわか雨", "light showers", "🌦️", Sky.RAIN),
    81: ("強いにわか雨", "showers", "🌧️", Sky.RAIN),
    82: ("激しいにわか雨", "violent showers", "⛈️", Sky.RAIN),
    85: ("にわか雪", "snow showers", "🌨️", Sky.SNOW),
    86: ("強いにわか雪", "heavy snow showers", "❄️", Sky.SNOW),
    95: ("雷雨", "thunderstorm", "⛈️", Sky.THUNDER),
    96: ("ひょうを伴う雷雨", "thunderstorm with hail", "⛈️", Sky.THUNDER),
    99: ("激しいひょうを伴う雷雨", "thunderstorm with heavy hail", "⛈️", Sky.THUNDER),
}


def conditions_for(code: int) -> Conditions:
    """Words for a WMO code; an unknown code falls back to its tens family, then to 'unknown'."""
    entry = _CODES.get(code)
    if entry is None:
        # A future code is most likely a variant of its family (e.g. 62 is some rain).
        family = max((c for c in _CODES if c // 10 == code // 10 and c <= code), default=None)
        entry = _CODES[family] if family is not None else ("不明", "unknown", "❔", Sky.OVERCAST)
    ja, en, emoji, sky = entry
    return Conditions(code=code, ja=ja, en=en, emoji=emoji, sky=sky)
