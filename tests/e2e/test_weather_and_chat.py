"""Weather answers, the daily post, chit-chat, the word pool and どうでもいいTips, end to end."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bot.runtime.clock import ManualClock
from bot.servers.posts import POSTS_JOB_ID, run_quietly
from tests.e2e.harness import RunningBot, running_bot
from tests.fakes.discord_server import (
    GENERAL_CHANNEL_ID,
    GUILD_ID,
    HANA_ID,
    RANDOM_CHANNEL_ID,
    TARO_ID,
    FakeDiscord,
    Json,
)
from tests.fakes.llm_server import ChatRequest, Reply, ScriptedLLM, text, tool_call
from tests.fakes.open_meteo import DayWeather, FakeOpenMeteo

pytestmark = pytest.mark.e2e

TOKYO = ZoneInfo("Asia/Tokyo")
POSTS_JOB = POSTS_JOB_ID


def today_in_tokyo(clock: ManualClock) -> date:
    """The clock's date in the bot's time zone (the conftest clock: Sunday 2026-11-29, 20:00)."""
    return clock.now().astimezone(TOKYO).date()


@pytest.fixture
async def weather(clock: ManualClock) -> AsyncIterator[FakeOpenMeteo]:
    """A fake Open-Meteo whose "today" is the clock's date in Tokyo."""
    async with FakeOpenMeteo(today=today_in_tokyo(clock)) as server:
        yield server


def weather_settings(weather: FakeOpenMeteo, **more: Any) -> dict[str, Any]:
    """Settings that send the forecast and geocoding clients to the fake Open-Meteo."""
    return {"WEATHER_API_BASE": weather.api_base, "GEOCODING_API_BASE": weather.api_base, **more}


def tool_results(request: ChatRequest) -> list[Json]:
    """The tool results the model was sent, parsed from their JSON text."""
    return [json.loads(m["content"]) for m in request.messages_with_role("tool")]


def system_prompt(request: ChatRequest) -> str:
    """The system messages of a model request (its stable part and its context)."""
    return request.system


def bot_posts(fake: FakeDiscord, otomo: RunningBot, channel_id: int) -> list[Json]:
    """The bot's messages in a channel."""
    return [m for m in fake.messages(channel_id) if m["author"]["id"] == str(otomo.fake_bot_id)]


def approval_buttons_ever_sent(fake: FakeDiscord) -> bool:
    """Whether any message the bot sent or edited carried an approval button."""
    return any("apv:" in json.dumps(r.json, ensure_ascii=False) for r in fake.requests)


def no_pings(message: Json) -> bool:
    """Whether Discord would ping nobody for this message."""
    return (
        message["allowed_mentions"]["parse"] == []
        and not message["allowed_mentions"].get("users")
        and not message["allowed_mentions"].get("roles")
        and message["mention_everyone"] is False
        and message["mentions"] == []
        and message["mention_roles"] == []
    )


async def wait_for_topics(otomo: RunningBot, *words: str, timeout: float = 5.0) -> None:  # noqa: ASYNC109
    """Wait until the bot's word pool holds every word (the gateway delivers asynchronously)."""
    pool = otomo.app.core.deps.word_pool
    async with asyncio.timeout(timeout):
        # The pool has no "word added" event to wait on; polling it is cheap.
        topics = pool.recent_topics
        while not set(words) <= {t.word for t in await topics(50, guild_id=GUILD_ID)}:  # noqa: ASYNC110
            await asyncio.sleep(0.02)


# -- asking about the weather -----------------------------------------------------------------


async def test_asking_about_laundry_gets_a_forecast_answer_without_an_approval_card(
    tmp_path: Path,
    fake: FakeDiscord,
    llm: ScriptedLLM,
    weather: FakeOpenMeteo,
    clock: ManualClock,
) -> None:
    tomorrow = today_in_tokyo(clock) + timedelta(days=1)
    weather.set_day(
        tomorrow,
        DayWeather(
            weather_code=0,
            temperature_max=19,
            temperature_min=9,
            rain=(0, 0, 10, 10),
            humidity=45,
            wind_max=4.0,
        ),
    )
    answer = "東京の明日 11月30日(月)は快晴☀️ 最高19℃/最低9℃、洗濯指数100の洗濯日和です！"
    llm.queue(tool_call("get_forecast", {"day": "tomorrow"}), text(answer))
    async with running_bot(
        tmp_path, fake=fake, llm=llm, clock=clock, **weather_settings(weather)
    ) as otomo:
        _, replies = await otomo.ask("明日洗濯できる？")

    asked, answered = llm.requests
    assert "お天気キャスター" in system_prompt(asked)  # the weather handler's prompt
    assert "2026-11-29" in system_prompt(asked)  # so that "明日" means the 30th
    assert "get_forecast" in asked.tool_names
    assert "create_reminder" not in asked.tool_names
    [result] = tool_results(answered)
    assert result["is_error"] is False
    forecast = result["output"]
    assert (forecast["place"], forecast["date"], forecast["day"]) == (
        "東京",
        "2026-11-30",
        "明日 11月30日(月)",
    )
    assert forecast["laundry"]["index_0_100"] == 100
    assert forecast["laundry"]["advice_ja"] == "洗濯日和"
    assert forecast["rain_chance_percent"]["afternoon_12_18"] == 10
    assert weather.count("/v1/forecast") == 1
    assert replies[-1]["content"] == answer
    # A read-only tool runs at once: its card never offers Approve/Reject.
    assert not approval_buttons_ever_sent(fake)
    assert all(m["components"] == [] for m in replies)


async def test_when_the_forecast_service_is_down_the_model_is_told_and_its_answer_is_posted(
    tmp_path: Path,
    fake: FakeDiscord,
    llm: ScriptedLLM,
    weather: FakeOpenMeteo,
    clock: ManualClock,
) -> None:
    weather.fail_status = 503
    apology = "ごめんなさい、今は天気予報サービスにつながりません。数分後にもう一度聞いてください🙏"
    llm.queue(tool_call("get_forecast", {"day": "tomorrow", "place": "大阪"}), text(apology))
    async with running_bot(
        tmp_path, fake=fake, llm=llm, clock=clock, **weather_settings(weather)
    ) as otomo:
        _, replies = await otomo.ask("明日の大阪の天気は？")

        [result] = tool_results(llm.requests[1])
        assert result["is_error"] is True
        assert "unreachable" in result["error"]
        assert "do not guess" in result["error"]
        assert replies[-1]["content"] == apology
        assert otomo.app.bot.is_closed() is False


# -- the daily weather post ------------------------------------------------------------------


async def test_the_daily_post_is_made_at_the_notify_time_and_posts_tomorrows_embed(
    tmp_path: Path,
    fake: FakeDiscord,
    llm: ScriptedLLM,
    weather: FakeOpenMeteo,
    clock: ManualClock,
) -> None:
    settings = weather_settings(
        weather, WEATHER_NOTIFY_TIME="07:00", WEATHER_NOTIFY_CHANNEL_ID=RANDOM_CHANNEL_ID
    )
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock, **settings) as otomo:
        job = otomo.app.core.scheduler.get_job(POSTS_JOB)
        assert job is not None
        # Sunday 20:00 in Tokyo: this morning's post is 13 hours late, not sent now.
        await job.func(*job.args)
        assert bot_posts(fake, otomo, RANDOM_CHANNEL_ID) == []

        clock.set(datetime(2026, 11, 30, 7, 0, tzinfo=TOKYO))
        weather.today = date(2026, 11, 30)
        weather.set_day(
            date(2026, 12, 1),
            DayWeather(
                weather_code=63,
                temperature_max=11,
                temperature_min=6,
                rain=(40, 80, 70, 50),
                humidity=85,
                wind_max=3.0,
            ),
        )
        await job.func(*job.args)
        await job.func(*job.args)

        [post] = bot_posts(fake, otomo, RANDOM_CHANNEL_ID)
        [embed] = post["embeds"]
        assert embed["title"] == "🌧️ 明日 12月1日(火) 東京の天気"
        assert "降水確率: 午前 80% / 午後 70% / 夜 50%" in embed["description"]
        fields = {f["name"]: f["value"] for f in embed["fields"]}
        assert fields["🧺 洗濯"] == "洗濯指数 0: 洗濯は見送り"
        assert fields["☂️ 傘"] == "傘を持って出かけましょう"
        assert embed["footer"]["text"] == "東京 · Open-Meteo"
        assert no_pings(post)


@pytest.mark.parametrize(("down_until", "posted"), [((7, 25), True), ((8, 0), False)])
async def test_after_a_restart_a_missed_daily_post_is_made_within_the_grace_only(
    tmp_path: Path,
    fake: FakeDiscord,
    llm: ScriptedLLM,
    weather: FakeOpenMeteo,
    down_until: tuple[int, int],
    posted: bool,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="bot.servers.posts")
    settings = weather_settings(
        weather,
        WEATHER_NOTIFY_TIME="07:00",
        WEATHER_NOTIFY_CHANNEL_ID=RANDOM_CHANNEL_ID,
        WEATHER_NOTIFY_GRACE_MINUTES=30,
    )
    # Sunday's post was made; every process was down from before Monday 07:00 until now.
    clock = ManualClock(datetime(2026, 11, 29, 7, 0, tzinfo=TOKYO))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock, **settings) as otomo:
        job = otomo.app.core.scheduler.get_job(POSTS_JOB)
        assert job is not None
        await job.func(*job.args)
    before = len(fake.messages(RANDOM_CHANNEL_ID))
    clock.set(datetime(2026, 11, 30, *down_until, tzinfo=TOKYO))
    weather.today = date(2026, 11, 30)
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock, **settings) as otomo:
        job = otomo.app.core.scheduler.get_job(POSTS_JOB)
        assert job is not None
        # The first look, at start (the lease of the process stopped a moment ago is still
        # held in the database: the test looks without waiting for it to run out).
        await run_quietly(*job.args)
        after = bot_posts(fake, otomo, RANDOM_CHANNEL_ID)

    assert len(after) - before == (1 if posted else 0)
    skipped = [r for r in caplog.records if "skipped: 60 minutes late" in r.getMessage()]
    assert bool(skipped) is not posted


async def test_nothing_is_posted_when_the_daily_post_and_tips_are_not_configured(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        job = otomo.app.core.scheduler.get_job(POSTS_JOB)
        assert job is not None
        for hour in range(0, 24, 3):
            clock.set(datetime(2026, 11, 30, hour, 0, tzinfo=TOKYO))
            await job.func(*job.args)

        assert bot_posts(fake, otomo, RANDOM_CHANNEL_ID) == []
        assert bot_posts(fake, otomo, GENERAL_CHANNEL_ID) == []
        assert llm.request_count == 0


async def test_a_notify_channel_without_a_time_schedules_nothing_and_names_the_missing_setting(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="bot.weather")
    async with running_bot(
        tmp_path, fake=fake, llm=llm, WEATHER_NOTIFY_CHANNEL_ID=RANDOM_CHANNEL_ID
    ):
        pass
    assert any("WEATHER_NOTIFY_TIME is not set" in r.getMessage() for r in caplog.records)


async def test_a_daily_post_the_channel_refuses_is_logged_with_the_setting_to_check(
    tmp_path: Path,
    fake: FakeDiscord,
    llm: ScriptedLLM,
    weather: FakeOpenMeteo,
    clock: ManualClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    settings = weather_settings(
        weather, WEATHER_NOTIFY_TIME="07:00", WEATHER_NOTIFY_CHANNEL_ID=RANDOM_CHANNEL_ID
    )
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock, **settings) as otomo:
        fake.inject("POST", channel_id=RANDOM_CHANNEL_ID, status=403)
        job = otomo.app.core.scheduler.get_job(POSTS_JOB)
        assert job is not None
        clock.set(datetime(2026, 11, 30, 7, 0, tzinfo=TOKYO))

        await job.func(*job.args)

        assert otomo.app.bot.is_closed() is False
    [record] = [r for r in caplog.records if "daily weather not posted" in r.getMessage()]
    assert record.levelname == "ERROR"
    assert "WEATHER_NOTIFY_CHANNEL_ID" in record.getMessage()
    assert "403" in record.getMessage()


# -- chit-chat, the word pool and tips --------------------------------------------------------


async def test_a_chat_mention_gets_one_model_call_with_recent_topics_and_the_persona(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    persona = "あなたは猫が大好きなボット「おとも」。語尾はときどき「にゃ」。"
    (tmp_path / "knowledge_base").mkdir()
    (tmp_path / "knowledge_base" / "persona.md").write_text(persona, encoding="utf-8")
    llm.queue(text("ラーメンでも食べに行くにゃ？🍜"))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        await fake.send_user_message(GENERAL_CHANNEL_ID, TARO_ID, "ラーメン屋の行列すごかった")
        await fake.send_user_message(GENERAL_CHANNEL_ID, HANA_ID, "キャンプに行きたい")
        _, replies = await otomo.ask("暇だなー")

    assert llm.request_count == 1
    prompt = system_prompt(llm.last_request)
    assert persona in prompt
    assert "「ラーメン」" in prompt and "「キャンプ」" in prompt
    assert "どうでもいいTips" in prompt
    assert "recent_topics" in llm.last_request.tool_names
    assert [m["content"] for m in replies] == ["ラーメンでも食べに行くにゃ？🍜"]


async def test_a_chat_tip_is_about_the_mentions_topic_and_falls_back_to_the_pool(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    llm.queue(text("猫は一日の大半を寝て過ごすにゃ"), text("ラーメンの話でもする？"))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        await fake.send_user_message(GENERAL_CHANNEL_ID, TARO_ID, "ラーメン屋の行列すごかった")
        _, on_topic = await otomo.ask("暇だから猫の話して")
        _, no_topic = await otomo.ask("暇だなー")

    first, second = (system_prompt(r) for r in llm.requests)
    assert "この発言の話題: 「猫」" in first
    # The pool still offers its words, and is the tip's fallback when the cat has none.
    assert "「ラーメン」" in first and "おすすめの題材: 「" in first
    assert "この発言の話題:" not in second and "おすすめの題材: 「" in second
    assert [m["content"] for m in on_topic] == ["猫は一日の大半を寝て過ごすにゃ"]
    assert [m["content"] for m in no_topic] == ["ラーメンの話でもする？"]


async def test_the_word_pool_survives_a_restart_and_never_collects_dms(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    llm.queue(text("ひみつは守るね🤫"))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        await fake.send_user_message(GENERAL_CHANNEL_ID, HANA_ID, "ラーメン屋の行列すごかった")
        await fake.send_user_message(RANDOM_CHANNEL_ID, TARO_ID, "盆栽の手入れをした")
        dm = await fake.send_dm_from_user(TARO_ID, "秘密だけどフクロウ作戦の話")
        await fake.wait_for_message(fake.dm_channel_id(TARO_ID), after=int(dm["id"]))
        await otomo.idle()
        await wait_for_topics(otomo, "ラーメン", "盆栽")

    clock.advance(timedelta(hours=1))
    llm.queue(tool_call("recent_topics", {"limit": 10}), text("最近はラーメンと盆栽の話が多いね！"))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        _, replies = await otomo.ask("雑談しよう")

    chat_prompt = system_prompt(llm.requests[1])
    assert "「ラーメン」" in chat_prompt and "「盆栽」" in chat_prompt
    [result] = tool_results(llm.requests[2])
    words = [t["word"] for t in result["output"]["topics"]]
    assert {"ラーメン", "盆栽", "手入れ"} <= set(words)
    for private in ("フクロウ作戦", "秘密"):
        assert private not in words
        assert private not in chat_prompt
    assert replies[-1]["content"] == "最近はラーメンと盆栽の話が多いね！"
    assert not approval_buttons_ever_sent(fake)


async def test_only_the_configured_channels_feed_the_word_pool(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    llm.queue(text("キャンプいいね！"))
    async with running_bot(
        tmp_path, fake=fake, llm=llm, clock=clock, WORD_POOL_CHANNEL_IDS=GENERAL_CHANNEL_ID
    ) as otomo:
        await fake.send_user_message(RANDOM_CHANNEL_ID, TARO_ID, "盆栽の手入れをした")
        await fake.send_user_message(GENERAL_CHANNEL_ID, HANA_ID, "キャンプに行きたい")
        await otomo.ask("雑談しよう")

    prompt = system_prompt(llm.last_request)
    assert "「キャンプ」" in prompt
    assert "盆栽" not in prompt


def tip_writer(request: ChatRequest) -> Reply:
    """The scripted model writes a tip about the topic it was given (and tries to ping all)."""
    topic = str(request.last_message["content"]).removeprefix("話題: ")
    return text(f"@everyone {topic}は、実は奥が深いそうです。")


async def test_tips_are_quiet_at_night_then_posted_on_pool_topics_without_repeats(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    llm.rule = tip_writer
    async with running_bot(
        tmp_path,
        fake=fake,
        llm=llm,
        clock=clock,
        TIPS_CHANNEL_ID=RANDOM_CHANNEL_ID,
        TIPS_INTERVAL_HOURS="3",
        TIPS_QUIET_HOURS="0-7",
    ) as otomo:
        await fake.send_user_message(GENERAL_CHANNEL_ID, HANA_ID, "ラーメンが食べたい")
        await fake.send_user_message(GENERAL_CHANNEL_ID, TARO_ID, "キャンプに行きたい")
        await wait_for_topics(otomo, "ラーメン", "キャンプ")
        job = otomo.app.core.scheduler.get_job(POSTS_JOB)
        assert job is not None
        # The first look sees tips on: the three-hour interval starts now (Sunday 20:00).
        await job.func(*job.args)

        def tips_posted() -> list[Json]:
            return [
                m
                for m in fake.messages(RANDOM_CHANNEL_ID)
                if m["author"]["id"] == str(otomo.fake_bot_id)
            ]

        clock.set(datetime(2026, 11, 30, 3, 0, tzinfo=TOKYO))
        await job.func(*job.args)
        assert tips_posted() == []
        assert llm.request_count == 0

        clock.set(datetime(2026, 11, 30, 12, 0, tzinfo=TOKYO))
        await job.func(*job.args)
        clock.advance(timedelta(hours=3))
        await job.func(*job.args)

        posts = tips_posted()
        topics = [p["content"].split("（")[1].split("）")[0] for p in posts]
        assert sorted(topics) == sorted(["ラーメン", "キャンプ"])
        assert [p["content"] for p in posts] == [
            f"💡 **どうでもいいTips**（{t}）\n@everyone {t}は、実は奥が深いそうです。"
            for t in topics
        ]
        assert all(no_pings(p) for p in posts)
        assert "どうでもいいTips" in system_prompt(llm.requests[0])
