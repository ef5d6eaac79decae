"""Each server's settings change what its members see, and nothing in the other server."""

from __future__ import annotations

from datetime import date, datetime, time
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.chat.feature import ENGLISH_SERVER
from bot.discord_ui.cards.embed import CardState
from bot.i18n import replies
from bot.runtime.clock import ManualClock
from bot.servers.config import SETTINGS as SETTINGS_BY_NAME
from bot.servers.posts import POSTS_JOB_ID
from tests.e2e.harness import (
    RunningBot,
    approval_card,
    card_is,
    card_state,
    custom_ids,
    running_bot,
)
from tests.fakes.discord_server import (
    GENERAL_CHANNEL_ID,
    GUILD_ID,
    HANA_ID,
    RANDOM_CHANNEL_ID,
    SECOND_GENERAL_CHANNEL_ID,
    SECOND_GUILD_ID,
    SECOND_MEMBER_ROLE_ID,
    SECOND_OWNER_ID,
    SORA_ID,
    TARO_ID,
    FakeDiscord,
    Json,
)
from tests.fakes.llm_server import ScriptedLLM, text, tool_call
from tests.fakes.open_meteo import FakeOpenMeteo

pytestmark = pytest.mark.e2e

TOKYO = ZoneInfo("Asia/Tokyo")
PIRATE = "海賊のように「〜だぜ」で話す"


def system_prompt(llm: ScriptedLLM, index: int) -> str:
    return llm.requests[index].system


async def open_panel(fake: FakeDiscord, user_id: int, channel_id: int) -> tuple[Json, int]:
    opened = await fake.invoke_slash("otomo settings", user_id=user_id, channel_id=channel_id)
    answer = await opened.wait_response()
    return answer, int(opened.original_message()["id"])  # type: ignore[index]


async def test_an_admin_sets_the_persona_in_the_panel_and_only_their_server_hears_it(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM
) -> None:
    fake = two_servers
    llm.queue(text("だぜ"), text("こんにちは"))
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        answer, message_id = await open_panel(fake, SECOND_OWNER_ID, SECOND_GENERAL_CHANNEL_ID)
        assert answer["data"]["flags"] & 64
        embed = answer["data"]["embeds"][0]
        assert "🌐" in str(embed) and "🏠" not in "".join(f["value"] for f in embed["fields"])
        menu = answer["data"]["components"][0]["components"][0]
        chosen = await fake.choose_select(
            message_id, menu["custom_id"], ["persona"], SECOND_OWNER_ID
        )
        modal = await chosen.wait_response()
        assert modal["type"] == 9
        field = modal["data"]["components"][0]["components"][0]["custom_id"]
        submitted = await fake.submit_modal(
            modal["data"]["custom_id"],
            {field: PIRATE},
            SECOND_OWNER_ID,
            SECOND_GENERAL_CHANNEL_ID,
            message_id,
        )
        redrawn = await submitted.wait_response()
        assert redrawn["type"] == 7
        assert f"🏠 ペルソナ（口調・キャラクター）: {PIRATE[:20]}" in str(redrawn["data"]["embeds"])

        await otomo.ask("暇だなー", channel_id=SECOND_GENERAL_CHANNEL_ID, user_id=SORA_ID)
        await otomo.ask("暇だなー", channel_id=GENERAL_CHANNEL_ID, user_id=HANA_ID)

    assert PIRATE in system_prompt(llm, 0)
    assert PIRATE not in system_prompt(llm, 1)


async def test_a_member_without_manage_server_cannot_open_the_panel(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM
) -> None:
    async with running_bot(tmp_path, fake=two_servers, llm=llm) as otomo:
        answer, _ = await open_panel(two_servers, SORA_ID, SECOND_GENERAL_CHANNEL_ID)

        # Said in the member's Discord language (Japanese in the fake), as one sentence.
        assert answer["data"]["content"] == replies.SETTINGS_REFUSAL("ja")
        assert not answer["data"].get("embeds")
        assert otomo.app.core.servers.config(SECOND_GUILD_ID).overridden == frozenset()


async def test_an_allow_list_silences_otomo_elsewhere_in_that_server_only(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(text("randomで答えます"), text("ロビーで答えます"))
    async with running_bot(tmp_path, fake=two_servers, llm=llm) as otomo:
        await otomo.app.core.servers.change(
            GUILD_ID, {"answer_mode": "allow", "answer_channels": frozenset({RANDOM_CHANNEL_ID})}, 1
        )
        silenced = await otomo.mention("こんにちは", channel_id=GENERAL_CHANNEL_ID)
        _, allowed = await otomo.ask("こんにちは", channel_id=RANDOM_CHANNEL_ID)
        _, other = await otomo.ask(
            "こんにちは", channel_id=SECOND_GENERAL_CHANNEL_ID, user_id=SORA_ID
        )
        await otomo.idle()

        assert otomo.bot_messages_after(silenced, GENERAL_CHANNEL_ID) == []
    assert [m["content"] for m in allowed] == ["randomで答えます"]
    assert [m["content"] for m in other] == ["ロビーで答えます"]
    assert llm.request_count == 2


async def test_a_tool_switched_off_in_one_server_is_still_offered_in_the_other(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(text("はい"), text("はい"))
    async with running_bot(tmp_path, fake=two_servers, llm=llm) as otomo:
        await otomo.app.core.servers.change(
            SECOND_GUILD_ID, {"disabled_tools": frozenset({"create_reminder"})}, SECOND_OWNER_ID
        )
        await otomo.ask(
            "明日の9時にリマインドして", channel_id=SECOND_GENERAL_CHANNEL_ID, user_id=SORA_ID
        )
        await otomo.ask("明日の9時にリマインドして", channel_id=GENERAL_CHANNEL_ID)

    assert "create_reminder" not in llm.requests[0].tool_names
    assert "create_reminder" in llm.requests[1].tool_names


async def test_a_spent_budget_is_said_once_then_only_marked_and_makes_no_model_call(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(text("最初の答え"), text("もう一方のサーバー"))
    async with running_bot(tmp_path, fake=two_servers, llm=llm) as otomo:
        await otomo.app.core.servers.change(SECOND_GUILD_ID, {"member_daily_tokens": 1}, 1)
        _, first = await otomo.ask(
            "こんにちは", channel_id=SECOND_GENERAL_CHANNEL_ID, user_id=SORA_ID
        )
        _, refused = await otomo.ask(
            "もう一回", channel_id=SECOND_GENERAL_CHANNEL_ID, user_id=SORA_ID
        )
        again = await otomo.mention("さらに", channel_id=SECOND_GENERAL_CHANNEL_ID, user_id=SORA_ID)
        await otomo.fake.wait_for_request("PUT", r".*/reactions/.*")
        await otomo.idle()
        quiet = otomo.bot_messages_after(again, SECOND_GENERAL_CHANNEL_ID)
        _, elsewhere = await otomo.ask("こんにちは", channel_id=GENERAL_CHANNEL_ID)

    assert [m["content"] for m in first] == ["最初の答え"]
    assert len(refused) == 1
    assert refused[0]["content"].startswith("あなたの今日の利用上限に達しました")
    assert "<t:" in refused[0]["content"]
    assert quiet == []
    assert [m["content"] for m in elsewhere] == ["もう一方のサーバー"]
    assert llm.request_count == 2


async def test_usage_shows_this_server_only_and_the_whole_bot_to_owners_only(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(text("一"), text("二"), text("三"))
    async with running_bot(tmp_path, fake=two_servers, llm=llm, OWNER_IDS=HANA_ID) as otomo:
        await otomo.ask("こんにちは", channel_id=SECOND_GENERAL_CHANNEL_ID, user_id=SORA_ID)
        await otomo.ask("こんにちは", channel_id=GENERAL_CHANNEL_ID)
        await otomo.ask("こんにちは", channel_id=GENERAL_CHANNEL_ID)

        here = await two_servers.invoke_slash(
            "otomo usage", user_id=SECOND_OWNER_ID, channel_id=SECOND_GENERAL_CHANNEL_ID
        )
        await here.wait_response()
        server_view = await here.wait_followup()
        refused = await two_servers.invoke_slash(
            "otomo usage",
            {"scope": "bot"},
            user_id=SECOND_OWNER_ID,
            channel_id=SECOND_GENERAL_CHANNEL_ID,
        )
        refusal = await refused.wait_response()
        owner = await two_servers.invoke_slash(
            "otomo usage", {"scope": "bot"}, user_id=HANA_ID, channel_id=SECOND_GENERAL_CHANNEL_ID
        )
        await owner.wait_response()
        bot_view = await owner.wait_followup()

    # The members' Discord is in Japanese: each answer is in Japanese only.
    assert "（このサーバー）" in server_view["content"]
    assert total_calls(server_view["content"]) == 1
    assert refusal["data"]["content"] == replies.USAGE_OWNERS_ONLY("ja")
    assert "（ボット全体）" in bot_view["content"] and total_calls(bot_view["content"]) == 3


def total_calls(content: str) -> int:
    line = next(x for x in content.splitlines() if x.startswith("total"))
    return int(line.split()[1])


async def test_a_channel_of_another_server_is_refused_and_nothing_changes(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM
) -> None:
    fake = two_servers
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        answer, message_id = await open_panel(fake, SECOND_OWNER_ID, SECOND_GENERAL_CHANNEL_ID)
        menu = answer["data"]["components"][0]["components"][0]
        chosen = await fake.choose_select(
            message_id, menu["custom_id"], ["weather_channel"], SECOND_OWNER_ID
        )
        modal = await chosen.wait_response()
        field = modal["data"]["components"][0]["components"][0]["custom_id"]
        submitted = await fake.submit_modal(
            modal["data"]["custom_id"],
            {field: f"<#{RANDOM_CHANNEL_ID}>"},
            SECOND_OWNER_ID,
            SECOND_GENERAL_CHANNEL_ID,
            message_id,
        )
        refusal = await submitted.wait_response()

        assert refusal["data"]["content"] == replies.SETTINGS_UNCHANGED(
            "ja", why=replies.NOT_OUR_CHANNEL("ja", ids=str(RANDOM_CHANNEL_ID))
        )
        assert otomo.app.core.servers.config(SECOND_GUILD_ID).overridden == frozenset()


async def test_each_server_gets_its_daily_weather_in_its_own_channel_at_its_own_time(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM
) -> None:
    clock = ManualClock(datetime(2026, 11, 30, 6, 0, tzinfo=TOKYO))
    async with (
        FakeOpenMeteo(today=date(2026, 11, 30)) as weather,
        running_bot(
            tmp_path,
            fake=two_servers,
            llm=llm,
            clock=clock,
            WEATHER_API_BASE=weather.api_base,
            GEOCODING_API_BASE=weather.api_base,
        ) as otomo,
    ):
        servers = otomo.app.core.servers
        seven = {"weather_enabled": True, "weather_time": time(7, 0)}
        await servers.change(GUILD_ID, {**seven, "weather_channel": RANDOM_CHANNEL_ID}, 1)
        await servers.change(
            SECOND_GUILD_ID,
            {**seven, "weather_channel": SECOND_GENERAL_CHANNEL_ID, "timezone": "Europe/London"},
            1,
        )
        job = otomo.app.core.scheduler.get_job(POSTS_JOB_ID)
        assert job is not None

        clock.set(datetime(2026, 11, 30, 7, 0, tzinfo=TOKYO))
        await job.func(*job.args)
        first = bot_posts(otomo, RANDOM_CHANNEL_ID)
        second_early = bot_posts(otomo, SECOND_GENERAL_CHANNEL_ID)
        clock.set(datetime(2026, 11, 30, 7, 0, tzinfo=ZoneInfo("Europe/London")))
        await job.func(*job.args)
        second = bot_posts(otomo, SECOND_GENERAL_CHANNEL_ID)

    assert len(first) == 1 and "東京" in first[0]["embeds"][0]["title"]
    assert second_early == []
    assert len(second) == 1
    assert len(bot_posts(otomo, RANDOM_CHANNEL_ID)) == 1


def bot_posts(otomo: RunningBot, channel_id: int) -> list[Json]:
    return [
        m for m in otomo.fake.messages(channel_id) if m["author"]["id"] == str(otomo.fake_bot_id)
    ]


async def test_reset_in_the_panel_returns_a_setting_to_the_bots_default(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM
) -> None:
    fake = two_servers
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        servers = otomo.app.core.servers
        await servers.change(SECOND_GUILD_ID, {"persona": PIRATE, "language": "en"}, 1)
        answer, message_id = await open_panel(fake, SECOND_OWNER_ID, SECOND_GENERAL_CHANNEL_ID)
        # The reset menu comes after the menus that change settings (one per 25 settings).
        reset = answer["data"]["components"][-1]["components"][0]
        assert {o["value"] for o in reset["options"]} == {"persona", "language"}

        chosen = await fake.choose_select(
            message_id, reset["custom_id"], ["persona"], SECOND_OWNER_ID
        )
        redrawn = await chosen.wait_response()

        assert redrawn["type"] == 7
        assert servers.config(SECOND_GUILD_ID).overridden == {"language"}
        assert servers.config(SECOND_GUILD_ID).persona == servers.defaults.persona


async def test_a_tool_auto_approved_in_one_server_still_asks_in_the_other(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM
) -> None:
    note = {"text": "集合は8時", "title": "集合"}
    llm.queue(tool_call("write_note", note), text("メモしました"))
    llm.queue(tool_call("write_note", note))
    async with running_bot(tmp_path, fake=two_servers, llm=llm) as otomo:
        await otomo.app.core.servers.change(
            SECOND_GUILD_ID, {"auto_approve_tools": frozenset({"write_note"})}, 1
        )
        _, there = await otomo.ask(
            "メモして", channel_id=SECOND_GENERAL_CHANNEL_ID, user_id=SORA_ID
        )
        await otomo.ask("メモして", channel_id=GENERAL_CHANNEL_ID)

        assert approval_card(two_servers, SECOND_GENERAL_CHANNEL_ID) is None
        assert "メモしました" in there[-1]["content"]
        assert approval_card(two_servers, GENERAL_CHANNEL_ID) is not None


def approve_button(card: Json) -> str:
    return next(c for c in custom_ids(card) if c.endswith(":approve"))


async def test_approver_roles_let_their_holders_decide_in_that_server_only(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM
) -> None:
    fake = two_servers
    note = {"text": "集合は8時", "title": "集合"}
    llm.queue(tool_call("write_note", note), text("メモしました"), tool_call("write_note", note))
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        await otomo.app.core.servers.change(
            SECOND_GUILD_ID, {"approver_roles": frozenset({SECOND_MEMBER_ROLE_ID})}, 1
        )
        await otomo.ask("メモして", channel_id=SECOND_GENERAL_CHANNEL_ID, user_id=SORA_ID)
        there = approval_card(fake, SECOND_GENERAL_CHANNEL_ID)
        assert there is not None
        # hana holds the server's approver role there: she decides sora's call.
        allowed = await fake.click_button(int(there["id"]), approve_button(there), HANA_ID)
        await allowed.wait_response()
        await fake.wait_until(lambda: card_is(CardState.DONE, fake.message(int(there["id"]))))
        await otomo.idle()

        await otomo.ask("メモして", channel_id=GENERAL_CHANNEL_ID, user_id=TARO_ID)
        here = approval_card(fake, GENERAL_CHANNEL_ID)
        assert here is not None
        waiting = card_state(here)
        refused = await fake.click_button(int(here["id"]), approve_button(here), HANA_ID)
        answer = await refused.wait_response()
        await otomo.idle()

        assert answer["data"]["flags"] & 64
        assert card_state(fake.message(int(here["id"]))) == waiting


async def test_a_server_in_english_gets_english_answers_and_the_other_stays_japanese(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(text("Hi!"), text("やあ"))
    async with running_bot(tmp_path, fake=two_servers, llm=llm) as otomo:
        await otomo.app.core.servers.change(SECOND_GUILD_ID, {"language": "en"}, 1)
        await otomo.ask("暇だなー", channel_id=SECOND_GENERAL_CHANNEL_ID, user_id=SORA_ID)
        await otomo.ask("暇だなー", channel_id=GENERAL_CHANNEL_ID)

    assert ENGLISH_SERVER in system_prompt(llm, 0)
    assert ENGLISH_SERVER not in system_prompt(llm, 1)


@pytest.mark.parametrize(
    ("locale", "expected", "other"),
    [
        (
            "en-US",
            ["⚙️ This server's settings", "💬 Answering", "Persona: —", "Change a setting"],
            "このサーバー",
        ),
        (
            "ja",
            [
                "⚙️ このサーバーの設定",
                "💬 応答",
                "ペルソナ（口調・キャラクター）: —",
                "変更する設定",
            ],
            "This server",
        ),
    ],
)
async def test_an_admin_reads_the_panel_and_its_refusals_in_their_discord_language(
    tmp_path: Path,
    two_servers: FakeDiscord,
    llm: ScriptedLLM,
    locale: str,
    expected: list[str],
    other: str,
) -> None:
    fake = two_servers
    fake.world.client_locale = locale
    language = "en" if locale == "en-US" else "ja"
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        answer, message_id = await open_panel(fake, SECOND_OWNER_ID, SECOND_GENERAL_CHANNEL_ID)
        shown = str(answer["data"])
        menu = answer["data"]["components"][0]["components"][0]
        chosen = await fake.choose_select(
            message_id, menu["custom_id"], ["weather_time"], SECOND_OWNER_ID
        )
        modal = await chosen.wait_response()
        field = modal["data"]["components"][0]["components"][0]
        submitted = await fake.submit_modal(
            modal["data"]["custom_id"],
            {field["custom_id"]: "25:99"},
            SECOND_OWNER_ID,
            SECOND_GENERAL_CHANNEL_ID,
            message_id,
        )
        refusal = await submitted.wait_response()
        refused, _ = await open_panel(fake, SORA_ID, SECOND_GENERAL_CHANNEL_ID)

        assert all(words in shown for words in expected), shown
        # One language at a time: nothing of the other one, and nothing glued with " / ".
        assert other not in shown and " / " not in shown
        assert modal["data"]["title"] == SETTINGS_BY_NAME["weather_time"].label(language)
        assert refusal["data"]["content"] == replies.SETTINGS_UNCHANGED(
            language, why=replies.ENTER_CLOCK_TIME(language)
        )
        assert refused["data"]["content"] == replies.SETTINGS_REFUSAL(language)
        assert otomo.app.core.servers.config(SECOND_GUILD_ID).overridden == frozenset()
