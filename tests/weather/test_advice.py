"""The laundry index and umbrella advice on the edge cases people ask about."""

from __future__ import annotations

from bot.weather.advice import LaundryLevel, laundry_advice, umbrella_advice
from bot.weather.conditions import Sky, conditions_for

CLEAR = conditions_for(0)
OVERCAST = conditions_for(3)
RAIN = conditions_for(63)
DRIZZLE = conditions_for(51)
THUNDER = conditions_for(95)


def test_a_sunny_dry_breezy_warm_day_is_perfect_for_laundry() -> None:
    advice = laundry_advice(CLEAR, 0, 40, 3.0, 22.0)
    assert advice.index == 100
    assert advice.level is LaundryLevel.GREAT
    assert (advice.ja, advice.en) == ("洗濯日和", "a perfect day for laundry")
    assert advice.note_ja is None


def test_a_rainy_day_means_skipping_the_laundry_whatever_else() -> None:
    advice = laundry_advice(RAIN, 0, 30, 5.0, 30.0)
    assert advice.index <= 10
    assert advice.level is LaundryLevel.SKIP
    assert laundry_advice(THUNDER, 0, 30, 5.0, 30.0).index <= 5


def test_drizzle_is_capped_below_drying_indoors() -> None:
    assert laundry_advice(DRIZZLE, 0, 40, 4.0, 25.0).level is LaundryLevel.SKIP


def test_a_high_rain_chance_on_a_clear_code_still_lowers_the_index() -> None:
    dry = laundry_advice(CLEAR, 0, 65, 2.0, 20.0)
    wet = laundry_advice(CLEAR, 80, 65, 2.0, 20.0)
    assert dry.index - wet.index == 40
    assert wet.level is LaundryLevel.INDOORS


def test_high_humidity_on_a_sunny_day_advises_drying_indoors() -> None:
    advice = laundry_advice(conditions_for(1), 10, 90, 1.0, 25.0)
    assert advice.level is LaundryLevel.INDOORS
    assert 30 <= advice.index < 55


def test_strong_wind_caps_the_index_and_warns() -> None:
    advice = laundry_advice(CLEAR, 0, 40, 12.0, 22.0)
    assert advice.index == 50
    assert advice.level is LaundryLevel.INDOORS
    assert advice.note_ja is not None and "12m/s" in advice.note_ja
    assert advice.note_en is not None and "blow away" in advice.note_en


def test_a_light_breeze_helps_and_cold_hurts() -> None:
    calm = laundry_advice(OVERCAST, 0, 50, 0.0, 18.0)
    breezy = laundry_advice(OVERCAST, 0, 50, 5.0, 18.0)
    cold = laundry_advice(OVERCAST, 0, 50, 0.0, 3.0)
    assert breezy.index - calm.index == 10
    assert calm.index - cold.index == 10


def test_an_overcast_mild_day_is_fine_outside() -> None:
    advice = laundry_advice(OVERCAST, 10, 60, 2.0, 18.0)
    assert advice.level is LaundryLevel.OUTDOORS_OK


def test_missing_figures_do_not_break_the_index() -> None:
    assert laundry_advice(CLEAR, None, None, None, None).index == 100


def test_umbrella_advice_follows_the_rain_chance() -> None:
    assert umbrella_advice(CLEAR, 10).need == "none"
    assert umbrella_advice(CLEAR, 30).need == "folding"
    assert umbrella_advice(CLEAR, 50).need == "take"
    assert umbrella_advice(RAIN, 0).need == "folding"
    assert umbrella_advice(RAIN, 40).need == "take"


def test_weather_codes_have_japanese_and_english_words() -> None:
    assert (CLEAR.ja, CLEAR.en, CLEAR.sky) == ("快晴", "clear sky", Sky.CLEAR)
    assert conditions_for(75).ja == "大雪"
    # An unlisted code falls back to the nearest lower code of its family.
    assert conditions_for(62).ja == "小雨"
    assert conditions_for(42).en == "unknown"
