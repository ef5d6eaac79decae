"""Otomo in two servers at once: members of each reach it, and each server's data stays its own.

"Otomo Test" (owner kenji, who also owns the application) and "Otomo Second" (owner yuki, who
has Manage Server there and nothing in the first); hana is in both, sora in the second only.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.members.permissions import Person
from bot.runtime.clock import ManualClock
from bot.servers.posts import POSTS_JOB_ID
from tests.e2e.harness import RunningBot, approval_card, custom_ids, running_bot
from tests.fakes.discord_server import (
    ADMIN_ID,
    GENERAL_CHANNEL_ID,
    GUILD_ID,
    HANA_ID,
    SECOND_GENERAL_CHANNEL_ID,
    SECOND_GUILD_ID,
    SECOND_OWNER_ID,
    SORA_ID,
    TARO_ID,
    FakeDiscord,
    Json,
)
from tests.fakes.llm_server import ChatRequest, ScriptedLLM, text, tool_call
from tests.fakes.tavily import API_KEY, FakeResult, FakeTavily

pytestmark = pytest.mark.e2e

DEFERRED, MODAL, EPHEMERAL = 5, 9, 64
RULES = "# サーバールール\n\n## 禁止事項\n\nスパムや宣伝は禁止です。\n"
FAQ = "# よくある質問\n\n## 参加方法\n\n招待リンクから参加できます。\n"
MOCHI = "# 餅つき大会\n\n餅つき大会は十二月の第二土曜日に公園で開きます。\n"
OWN_RULES = (
    "# サーバールール\n\n## 禁止事項\n\nこのサーバーでは宣伝チャンネルでの宣伝は自由です。\n"
)


@asynccontextmanager
async def _otomo(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, **settings: Any
) -> AsyncIterator[RunningBot]:
    """The bot in both servers over a shared base holding rules.md and faq.md."""
    root = tmp_path / "knowledge_base"
    root.mkdir(exist_ok=True)
    (root / "rules.md").write_text(RULES, "utf-8")
    (root / "faq.md").write_text(FAQ, "utf-8")
    async with running_bot(tmp_path, fake=fake, llm=llm, **settings) as otomo:
        await asyncio.wait_for(otomo.app.core.deps.knowledge.wait_ready(), 10)
        yield otomo


def _system(request: ChatRequest) -> str:
    return request.system


async def _slash(
    fake: FakeDiscord, name: str, options: dict[str, Any], user_id: int, channel_id: int
) -> Json:
    """Run a slash command; return the bot's final answer (the followup after a defer)."""
    record = await fake.invoke_slash(name, options, user_id=user_id, channel_id=channel_id)
    response = await record.wait_response()
    if response["type"] == DEFERRED:
        return await record.wait_followup()
    return dict(response["data"])


async def _kb_new(fake: FakeDiscord, path: str, body: str, user_id: int, channel_id: int) -> Json:
    """/kb new through its form; return what the bot answers after saving."""
    record = await fake.invoke_slash(
        "kb new", {"path": path}, user_id=user_id, channel_id=channel_id
    )
    response = await record.wait_response()
    assert response["type"] == MODAL, response
    submitted = await fake.submit_modal(response["data"]["custom_id"], {"text": body}, user_id)
    assert (await submitted.wait_response())["type"] == DEFERRED
    return await submitted.wait_followup()


async def _asked_prompt(otomo: RunningBot, question: str, **where: Any) -> str:
    """The system prompt the model got for a question asked where and by whom."""
    await otomo.ask(question, **where)
    return _system(otomo.llm.last_request)


async def _dm_prompt(otomo: RunningBot, question: str, user_id: int) -> str:
    await otomo.ask_dm(question, user_id=user_id)
    return _system(otomo.llm.last_request)


SECOND = {"channel_id": SECOND_GENERAL_CHANNEL_ID, "user_id": SORA_ID}
FIRST = {"channel_id": GENERAL_CHANNEL_ID, "user_id": HANA_ID}


async def test_members_of_either_server_and_of_both_are_answered_where_they_ask(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(text("ロビーからこんにちは"), text("一般からこんにちは"), text("DMです"))
    async with running_bot(tmp_path, fake=two_servers, llm=llm) as otomo:
        assert {g.id for g in otomo.app.bot.guilds} == {GUILD_ID, SECOND_GUILD_ID}

        _, there = await otomo.ask("こんにちは", **SECOND)
        _, here = await otomo.ask("こんにちは", **FIRST)
        _, dm = await otomo.ask_dm("こんにちは", user_id=SORA_ID)

    assert [m["content"] for m in there] == ["ロビーからこんにちは"]
    assert [m["content"] for m in here] == ["一般からこんにちは"]
    assert [m["content"] for m in dm] == ["DMです"]


async def test_slash_commands_synced_globally_run_in_the_second_server(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM
) -> None:
    async with running_bot(tmp_path, fake=two_servers, llm=llm):
        interaction = await two_servers.invoke_slash(
            "otomo help", user_id=SECOND_OWNER_ID, channel_id=SECOND_GENERAL_CHANNEL_ID
        )
        answer = await interaction.wait_response()

    assert interaction.payload["guild_id"] == str(SECOND_GUILD_ID)
    assert answer["data"]["flags"] & EPHEMERAL and "リマインド" in answer["data"]["content"]


# -- knowledge -------------------------------------------------------------------------------


async def test_knowledge_written_in_one_server_is_found_there_only_and_dms_see_the_shared(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.rule = lambda request: text("はい")
    async with _otomo(tmp_path, two_servers, llm) as otomo:
        created = await _kb_new(
            two_servers, "mochi.md", MOCHI, SECOND_OWNER_ID, SECOND_GENERAL_CHANNEL_ID
        )
        overridden = await _kb_new(
            two_servers, "rules.md", OWN_RULES, SECOND_OWNER_ID, SECOND_GENERAL_CHANNEL_ID
        )

        mochi_there = await _asked_prompt(otomo, "餅つき大会はいつ？", **SECOND)
        mochi_here = await _asked_prompt(otomo, "餅つき大会はいつ？", **FIRST)
        mochi_dm = await _dm_prompt(otomo, "餅つき大会はいつ？", SECOND_OWNER_ID)
        rules_there = await _asked_prompt(otomo, "サーバーのルールで禁止事項は？", **SECOND)
        rules_here = await _asked_prompt(otomo, "サーバーのルールで禁止事項は？", **FIRST)
        rules_dm = await _dm_prompt(otomo, "サーバーのルールで禁止事項は？", SORA_ID)
        listed_here = await _slash(two_servers, "kb list", {}, ADMIN_ID, GENERAL_CHANNEL_ID)

    own = f"knowledge_base/servers/{SECOND_GUILD_ID}"
    assert created["content"].startswith(f"🆕 `{own}/mochi.md`")
    assert overridden["content"].startswith(f"🆕 `{own}/rules.md`")
    assert "餅つき大会は十二月" in mochi_there and f"出典: {own}/mochi.md" in mochi_there
    assert "餅つき" not in mochi_here and "餅つき" not in mochi_dm
    # The second server's rules replace the shared ones there, and nowhere else.
    assert "宣伝は自由" in rules_there and "スパムや宣伝は禁止" not in rules_there
    assert "スパムや宣伝は禁止" in rules_here and "宣伝は自由" not in rules_here
    assert "スパムや宣伝は禁止" in rules_dm and "宣伝は自由" not in rules_dm
    assert "mochi.md" not in listed_here["content"] and "servers/" not in listed_here["content"]


async def test_a_server_admin_deletes_only_their_servers_files_never_the_shared_ones(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.rule = lambda request: text("はい")
    async with _otomo(tmp_path, two_servers, llm) as otomo:
        root = otomo.settings.knowledge_base_dir
        refused = await _slash(
            two_servers, "kb delete", {"path": "faq.md"}, SECOND_OWNER_ID, SECOND_GENERAL_CHANNEL_ID
        )
        not_owner = await _slash(
            two_servers,
            "kb new",
            {"path": "guide.md", "shared": True},
            SECOND_OWNER_ID,
            SECOND_GENERAL_CHANNEL_ID,
        )
        await _kb_new(two_servers, "mochi.md", MOCHI, SECOND_OWNER_ID, SECOND_GENERAL_CHANNEL_ID)
        record = await two_servers.invoke_slash(
            "kb delete",
            {"path": "mochi.md"},
            user_id=SECOND_OWNER_ID,
            channel_id=SECOND_GENERAL_CHANNEL_ID,
        )
        await record.wait_response()
        asked = record.original_message()
        assert asked is not None
        yes = next(c for c in custom_ids(asked) if c.endswith(":yes"))
        click = await two_servers.click_button(int(asked["id"]), yes, SECOND_OWNER_ID)
        await click.wait_response()
        done = await click.wait_original_edit()
        faq_here = await _asked_prompt(otomo, "参加方法を教えて", **FIRST)
        mochi_there = await _asked_prompt(otomo, "餅つき大会はいつ？", **SECOND)

    # The members' Discord is in Japanese: each refusal is said in Japanese only.
    assert "すべてのサーバー共通のファイル" in refused["content"] and refused["flags"] & EPHEMERAL
    assert "shared file" not in refused["content"]
    assert "ボットの管理者" in not_owner["content"] and not (root / "guide.md").exists()
    assert (root / "faq.md").read_text("utf-8") == FAQ
    assert "招待リンクから参加できます" in faq_here
    assert "を削除しました" in done["content"] and "mochi.md" in done["content"]
    assert not (root / "servers" / str(SECOND_GUILD_ID) / "mochi.md").exists()
    assert "餅つき" not in mochi_there


QUERY = "Discord サーバーブースト 特典"
RESULTS = [
    FakeResult(
        "サーバーブーストの特典まとめ",
        "https://blog.example.jp/boost",
        "ブーストするとサーバーの絵文字枠が増え、配信画質も上がります。",
    )
]


async def test_a_web_search_is_archived_for_the_server_that_asked_only(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(tool_call("web_search", {"query": QUERY}), text("絵文字枠が増えます。"))
    async with FakeTavily() as tavily:
        tavily.answer_for(QUERY, RESULTS, answer="ブーストで絵文字枠が増えます。")
        async with _otomo(
            tmp_path, two_servers, llm, TAVILY_API_KEY=API_KEY, TAVILY_API_BASE=tavily.url
        ) as otomo:
            await otomo.mention("ブーストの特典を調べて", **SECOND)
            await two_servers.wait_until(
                lambda: approval_card(two_servers, SECOND_GENERAL_CHANNEL_ID), timeout=10
            )
            card = approval_card(two_servers, SECOND_GENERAL_CHANNEL_ID)
            assert card is not None
            approve = next(c for c in custom_ids(card) if c.endswith(":approve"))
            await two_servers.click_button(int(card["id"]), approve, SORA_ID)
            await two_servers.wait_for_message(
                SECOND_GENERAL_CHANNEL_ID, lambda m: "絵文字枠が増えます" in m["content"]
            )
            await otomo.idle()
            llm.rule = lambda request: text("はい")
            there = await _asked_prompt(otomo, "ブーストすると絵文字は増える？", **SECOND)
            here = await _asked_prompt(otomo, "ブーストすると絵文字は増える？", **FIRST)
            dm = await _dm_prompt(otomo, "ブーストすると絵文字は増える？", HANA_ID)

    saved = list((tmp_path / "knowledge_base" / "servers" / str(SECOND_GUILD_ID)).rglob("*.md"))
    assert [p.parent.name for p in saved] == ["web_search"]
    assert "(saved web search)" in there and "絵文字枠が増え" in there
    archive = f"servers/{SECOND_GUILD_ID}/web_search/"
    assert archive in there
    assert archive not in here and "絵文字枠" not in here
    assert archive not in dm and "絵文字枠" not in dm


# -- grants, topics and notes ----------------------------------------------------------------

REMINDER = {"when": "2026-12-01T09:00", "what": "歯医者"}


async def test_an_always_allow_in_one_server_does_not_approve_in_the_other(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    llm.queue(
        tool_call("create_reminder", REMINDER),
        text("登録しました"),
        tool_call("create_reminder", {**REMINDER, "what": "薬"}),
    )
    async with running_bot(tmp_path, fake=two_servers, llm=llm, clock=clock) as otomo:
        await otomo.mention("12月1日の9時に歯医者ってリマインドして")
        await two_servers.wait_until(lambda: approval_card(two_servers) is not None, timeout=10)
        card = approval_card(two_servers)
        assert card is not None
        always = next(c for c in custom_ids(card) if c.endswith(":always"))
        await two_servers.click_button(int(card["id"]), always, HANA_ID)
        await two_servers.wait_for_message(
            GENERAL_CHANNEL_ID, lambda m: m["content"] == "登録しました"
        )
        await otomo.idle()

        await otomo.mention(
            "12月1日の9時に薬ってリマインドして",
            channel_id=SECOND_GENERAL_CHANNEL_ID,
            user_id=HANA_ID,
        )
        await two_servers.wait_until(
            lambda: approval_card(two_servers, SECOND_GENERAL_CHANNEL_ID), timeout=10
        )
        listed = await _slash(two_servers, "tools allowed", {}, HANA_ID, SECOND_GENERAL_CHANNEL_ID)

    assert "create_reminder" not in listed["content"]


async def _words_in_pool(otomo: RunningBot, guild_id: int, *words: str) -> None:
    pool = otomo.app.core.deps.word_pool
    async with asyncio.timeout(5):
        # The pool has no "word added" event to wait on; polling it is cheap.
        while not set(words) <= {t.word for t in await pool.recent_topics(50, guild_id=guild_id)}:  # noqa: ASYNC110
            await asyncio.sleep(0.02)


async def test_topics_and_tips_come_from_the_servers_own_members_only(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    llm.rule = lambda request: text("豆知識です")
    async with running_bot(
        tmp_path,
        fake=two_servers,
        llm=llm,
        clock=clock,
        TIPS_CHANNEL_ID=GENERAL_CHANNEL_ID,
        TIPS_QUIET_HOURS="",
    ) as otomo:
        await two_servers.send_user_message(GENERAL_CHANNEL_ID, TARO_ID, "ラーメンが食べたい")
        for _ in range(3):
            await two_servers.send_user_message(SECOND_GENERAL_CHANNEL_ID, SORA_ID, "競馬の話")
        await _words_in_pool(otomo, GUILD_ID, "ラーメン")
        await _words_in_pool(otomo, SECOND_GUILD_ID, "競馬")
        job = otomo.app.core.scheduler.get_job(POSTS_JOB_ID)
        assert job is not None
        await job.func(*job.args)  # tips are seen on: their interval starts
        clock.advance(timedelta(hours=6))
        await job.func(*job.args)
        tip_request = llm.last_request
        tips = [
            m["content"]
            for channel in (GENERAL_CHANNEL_ID, SECOND_GENERAL_CHANNEL_ID)
            for m in two_servers.messages(channel)
            if "どうでもいいTips" in m["content"]
        ]
        chat_there = await _asked_prompt(otomo, "暇だなー", **SECOND)
        chat_here = await _asked_prompt(otomo, "暇だなー", **FIRST)

    # TIPS_CHANNEL_ID is a channel of the first server: the second server gets no tip there.
    assert [t.split("\n")[0] for t in tips] == ["💡 **どうでもいいTips**（ラーメン）"]
    assert "競馬" not in str(tip_request.messages)
    assert "「競馬」" in chat_there and "ラーメン" not in chat_there
    assert "「ラーメン」" in chat_here and "競馬" not in chat_here


async def test_notes_of_one_server_never_reach_the_other(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.rule = lambda request: text("はい")
    async with running_bot(tmp_path, fake=two_servers, llm=llm) as otomo:
        await otomo.app.core.deps.notebook.write(
            SECOND_GUILD_ID,
            SECOND_GENERAL_CHANNEL_ID,
            Person(SORA_ID, "sora"),
            "東京駅の丸の内北口に8時",
            "旅行の集合",
        )
        there = await _asked_prompt(otomo, "旅行の集合場所どこだっけ？", **SECOND)
        here = await _asked_prompt(otomo, "旅行の集合場所どこだっけ？", **FIRST)
        dm = await _dm_prompt(otomo, "旅行の集合場所どこだっけ？", HANA_ID)

    assert "丸の内北口" in there
    assert "丸の内北口" not in here and "丸の内北口" not in dm
