"""Place names in Japanese and English resolve to the right coordinates and time zone."""

from __future__ import annotations

import pytest

from bot.weather.errors import UnknownPlaceError
from bot.weather.places import known_place
from bot.weather.service import WeatherService
from tests.fakes.open_meteo import FakeOpenMeteo, GeoEntry


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("東京", "東京"),
        ("東京都", "東京"),
        ("大阪", "大阪"),
        ("大阪府", "大阪"),
        ("大阪市", "大阪"),
        ("Osaka", "大阪"),
        ("ＯＳＡＫＡ", "大阪"),
        ("osaka city", "大阪"),
        ("京都", "京都"),
        ("京都府", "京都"),
        ("神奈川県", "横浜"),
        ("北海道", "札幌"),
        ("Sapporo", "札幌"),
    ],
)
def test_common_japanese_and_english_names_are_built_in(name: str, expected: str) -> None:
    place = known_place(name)
    assert place is not None
    assert place.name == expected
    assert place.timezone == "Asia/Tokyo"


def test_a_prefecture_resolves_to_its_capital_and_shows_both() -> None:
    place = known_place("神奈川")
    assert place is not None
    assert place.label() == "横浜（神奈川県）"
    assert place.latitude == pytest.approx(35.45, abs=0.05)
    assert place.longitude == pytest.approx(139.64, abs=0.05)


async def test_built_in_places_need_no_geocoding_request(
    service: WeatherService, fake: FakeOpenMeteo
) -> None:
    tokyo = await service.resolve_place("東京")
    osaka = await service.resolve_place("Osaka")
    assert (tokyo.name, osaka.name) == ("東京", "大阪")
    assert osaka.latitude == pytest.approx(34.69, abs=0.05)
    assert fake.count("/v1/search") == 0


async def test_no_place_means_the_default_place(service: WeatherService) -> None:
    assert (await service.resolve_place(None)).name == "東京"
    assert (await service.resolve_place("  ")).name == "東京"


async def test_other_japanese_places_are_geocoded_in_japanese(
    service: WeatherService, fake: FakeOpenMeteo
) -> None:
    place = await service.resolve_place("軽井沢")
    assert place.name == "軽井沢町"
    assert place.region == "長野県"
    assert place.latitude == pytest.approx(36.35, abs=0.01)
    assert fake.requests[0] == (
        "/v1/search",
        {"name": "軽井沢", "count": "5", "language": "ja", "format": "json"},
    )


async def test_an_english_name_falls_back_to_an_english_search(
    service: WeatherService, fake: FakeOpenMeteo
) -> None:
    place = await service.resolve_place("Karuizawa")
    assert place.name == "Karuizawa"
    assert [q["language"] for _, q in fake.requests] == ["ja", "en"]


async def test_a_foreign_city_keeps_its_own_time_zone(
    service: WeatherService, fake: FakeOpenMeteo
) -> None:
    place = await service.resolve_place("ベルリン")
    assert (place.name, place.country, place.timezone) == ("ベルリン", "ドイツ", "Europe/Berlin")
    await service.get_forecast("ベルリン", "today")
    forecast_query = next(q for path, q in fake.requests if path == "/v1/forecast")
    assert forecast_query["timezone"] == "Europe/Berlin"


async def test_geocoded_places_are_cached(service: WeatherService, fake: FakeOpenMeteo) -> None:
    await service.resolve_place("軽井沢")
    await service.resolve_place("軽井沢")
    assert fake.count("/v1/search") == 1


async def test_an_unknown_place_raises_and_the_miss_is_remembered(
    service: WeatherService, fake: FakeOpenMeteo
) -> None:
    with pytest.raises(UnknownPlaceError) as caught:
        await service.resolve_place("ほげほげ村")
    assert caught.value.place == "ほげほげ村"
    assert "ほげほげ村" in str(caught.value)
    searches = fake.count("/v1/search")
    assert searches == 2  # in Japanese, then in English
    with pytest.raises(UnknownPlaceError):
        await service.resolve_place("ほげほげ村")
    assert fake.count("/v1/search") == searches


async def test_a_two_character_name_is_also_tried_with_shi(
    service: WeatherService, fake: FakeOpenMeteo
) -> None:
    fake.places.append(
        GeoEntry(
            names={"ja": "熱海市", "en": "Atami"},
            latitude=35.0964,
            longitude=139.0716,
            timezone="Asia/Tokyo",
            country={"ja": "日本", "en": "Japan"},
            admin1={"ja": "静岡県", "en": "Shizuoka"},
        )
    )
    place = await service.resolve_place("熱海")
    assert place.name == "熱海市"
    assert [q["name"] for _, q in fake.requests] == ["熱海", "熱海市"]
