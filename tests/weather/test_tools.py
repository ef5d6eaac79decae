"""The get_forecast tool as the agent runs it, and the weather handler's instructions."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from bot.agent.tools import ToolContext, execute, parse_arguments
from bot.runtime.clock import ManualClock
from bot.settings import Settings
from bot.storage.engine import create_database
from bot.weather.prompt import weather_instructions
from bot.weather.service import WeatherService
from bot.weather.tools import WEATHER_TOOLS
from tests.fakes.open_meteo import DayWeather, FakeOpenMeteo
from tests.weather.conftest import TOMORROW


@dataclass(frozen=True)
class WeatherOnly:
    """The part of the bot's dependencies get_forecast uses."""

    weather: WeatherService


@pytest.fixture
async def ctx(
    settings: Settings, clock: ManualClock, service: WeatherService
) -> AsyncIterator[ToolContext[WeatherOnly]]:
    database = create_database("sqlite+aiosqlite://")
    yield ToolContext(
        user_id=10,
        user_name="hanako",
        guild_id=20,
        channel_id=30,
        clock=clock,
        sessions=database.sessions,
        settings=settings,
        timezone=ZoneInfo("Asia/Tokyo"),
        deps=WeatherOnly(service),
    )
    await database.dispose()


async def test_the_tool_is_read_only_and_needs_no_approval() -> None:
    (tool,) = WEATHER_TOOLS
    assert tool.name == "get_forecast"
    assert tool.requires_approval is False
    assert tool.parameters["required"] == ["day"]
    assert "place" in tool.parameters["properties"]


async def test_the_tool_returns_structured_forecast_json(
    service: WeatherService, fake: FakeOpenMeteo, ctx: ToolContext[WeatherOnly]
) -> None:
    fake.set_day(TOMORROW, DayWeather(weather_code=0, rain=(0, 0, 10, 20), humidity=45))
    (tool,) = WEATHER_TOOLS
    arguments, problem = parse_arguments(tool, '{"place": "大阪", "day": "明日"}')
    assert problem is None and arguments is not None
    outcome = await execute(tool, ctx, arguments)
    assert outcome.is_error is False
    data = json.loads(outcome.to_content())["output"]
    assert data["place"] == "大阪"
    assert data["place_en"] == "Osaka"
    assert data["date"] == "2025-11-30"
    assert data["day"] == "明日 11月30日(日)"
    assert data["conditions"] == {"ja": "快晴", "en": "clear sky"}
    assert data["rain_chance_percent"] == {
        "morning_06_12": 0,
        "afternoon_12_18": 10,
        "evening_18_24": 20,
    }
    assert data["laundry"]["advice_ja"] == "洗濯日和"
    assert 0 <= data["laundry"]["index_0_100"] <= 100


async def test_without_a_place_the_tool_uses_the_default(
    service: WeatherService, ctx: ToolContext[WeatherOnly]
) -> None:
    (tool,) = WEATHER_TOOLS
    outcome = await execute(tool, ctx, {"day": "today"})
    assert outcome.output["place"] == "東京"


async def test_an_unknown_place_tells_the_model_to_ask_the_user(
    service: WeatherService, ctx: ToolContext[WeatherOnly]
) -> None:
    (tool,) = WEATHER_TOOLS
    outcome = await execute(tool, ctx, {"place": "ほげほげ村", "day": "today"})
    assert outcome.is_error
    assert "Ask the user which city or prefecture" in outcome.output


async def test_a_provider_outage_tells_the_model_to_say_so_plainly(
    service: WeatherService, fake: FakeOpenMeteo, ctx: ToolContext[WeatherOnly]
) -> None:
    fake.fail_status = 502
    (tool,) = WEATHER_TOOLS
    outcome = await execute(tool, ctx, {"day": "today"})
    assert outcome.is_error
    assert "unreachable" in outcome.output
    assert "do not guess" in outcome.output


async def test_a_day_beyond_the_forecast_is_explained_to_the_model(
    service: WeatherService, ctx: ToolContext[WeatherOnly]
) -> None:
    (tool,) = WEATHER_TOOLS
    outcome = await execute(tool, ctx, {"day": "2026-01-01"})
    assert outcome.is_error
    assert "2025-11-29 to 2025-12-05" in outcome.output


async def test_calls_share_the_services_cache(
    fake: FakeOpenMeteo, ctx: ToolContext[WeatherOnly]
) -> None:
    for _ in range(2):
        outcome = await execute(WEATHER_TOOLS[0], ctx, {"place": "Osaka", "day": "tomorrow"})
        assert outcome.is_error is False
        assert outcome.output["date"] == "2025-11-30"
    assert fake.count("/v1/forecast") == 1


def test_weather_instructions_name_the_date_the_default_place_and_the_advice() -> None:
    now = datetime(2025, 11, 29, 12, 0, tzinfo=ZoneInfo("Asia/Tokyo"))
    text = weather_instructions("東京", now)
    assert "2025-11-29 (土曜日) 12:00 JST" in text
    assert "既定の場所: 東京" in text
    assert "get_forecast" in text
    assert "洗濯日和" in text and "傘" in text
    assert "ユーザーが使った言語" in text


def test_weather_instructions_can_leave_the_date_to_the_surrounding_prompt() -> None:
    text = weather_instructions("大阪")
    assert "現在日時" not in text
    assert "既定の場所: 大阪" in text
