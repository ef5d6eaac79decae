"""The typing indicator stays on for the whole run, through long tool calls and the run that
continues after an approval, and stops when the run ends."""

from __future__ import annotations

import asyncio
from datetime import date
from pathlib import Path

import pytest

from bot.discord_ui.answering import live as typing_indicator
from bot.runtime.clock import ManualClock
from tests.e2e.harness import approval_card, custom_ids, running_bot
from tests.fakes.discord_server import GENERAL_CHANNEL_ID, HANA_ID, FakeDiscord
from tests.fakes.llm_server import ScriptedLLM, text, tool_call
from tests.fakes.open_meteo import FakeOpenMeteo
from tests.fakes.tavily import API_KEY, FakeTavily

pytestmark = pytest.mark.e2e

# Renewals observed while a tool is held; the quiet spell after the run spans this many too.
RENEWALS = 3
REFRESH = 0.1


@pytest.fixture(autouse=True)
def quick_renewal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Renew the indicator every 0.1 s instead of 8 s, so a test sees several renewals."""
    monkeypatch.setattr(typing_indicator, "REFRESH_SECONDS", REFRESH)


def typing_requests(fake: FakeDiscord, channel_id: int = GENERAL_CHANNEL_ID) -> int:
    """How many typing requests the bot made in the channel so far."""
    return sum(1 for channel, _ in fake.typing if channel == channel_id)


async def assert_typing_stopped(fake: FakeDiscord) -> None:
    """No typing request follows during several renewal periods."""
    count = typing_requests(fake)
    await asyncio.sleep(REFRESH * (RENEWALS + 2))
    assert typing_requests(fake) == count


async def test_typing_lasts_through_a_long_tool_call_and_stops_when_the_run_ends(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    llm.queue(tool_call("get_forecast", {"day": "tomorrow"}), text("明日は晴れそうです"))
    async with FakeOpenMeteo(today=date(2026, 11, 29)) as weather:
        weather.hold()
        async with running_bot(
            tmp_path,
            fake=fake,
            llm=llm,
            clock=clock,
            WEATHER_API_BASE=weather.api_base,
            GEOCODING_API_BASE=weather.api_base,
        ) as otomo:
            await otomo.mention("明日の天気は？")
            await fake.wait_until(lambda: weather.requests, timeout=10)  # the tool is running
            during = typing_requests(fake)
            await fake.wait_until(lambda: typing_requests(fake) >= during + RENEWALS)
            weather.release()
            await fake.wait_for_message(GENERAL_CHANNEL_ID, lambda m: "晴れ" in m["content"])
            await otomo.idle()

            await assert_typing_stopped(fake)


async def test_typing_returns_for_the_run_an_approval_resumes_and_stops_with_it(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(
        tool_call("web_search", {"query": "サーバーブースト 特典"}),
        text("ブーストで絵文字枠が増えます。"),
    )
    async with FakeTavily() as tavily:
        tavily.hold()
        async with running_bot(
            tmp_path, fake=fake, llm=llm, TAVILY_API_KEY=API_KEY, TAVILY_API_BASE=tavily.url
        ) as otomo:
            await otomo.mention("サーバーブーストの特典を調べて")
            await fake.wait_until(lambda: approval_card(fake) is not None, timeout=10)
            await otomo.idle()  # the run ends at the card: nobody is typing while a person decides
            await assert_typing_stopped(fake)

            card = approval_card(fake)
            assert card is not None
            approve = next(c for c in custom_ids(card) if c.endswith(":approve"))
            await fake.click_button(int(card["id"]), approve, HANA_ID)
            await fake.wait_until(lambda: tavily.requests, timeout=10)  # the search is running
            during = typing_requests(fake)
            await fake.wait_until(lambda: typing_requests(fake) >= during + RENEWALS)
            tavily.release()
            await fake.wait_for_message(GENERAL_CHANNEL_ID, lambda m: "絵文字枠" in m["content"])
            await otomo.idle()

            await assert_typing_stopped(fake)
