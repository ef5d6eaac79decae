"""The web_search tool against a fake Tavily: numbered sources, saved and indexed, errors."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.agent.tools import ToolContext, execute
from bot.knowledge import search_knowledge, web_tools
from bot.knowledge import web_search as web_search_module
from bot.knowledge.changes import ChangeAction, list_changes
from bot.knowledge.documents import parse_front_matter
from bot.knowledge.index import KnowledgeIndex
from bot.knowledge.web_archive import archive_path, slugify
from bot.knowledge.web_search import web_search
from bot.runtime.clock import ManualClock
from bot.servers import ServerScope
from bot.settings import Settings
from tests.fakes.tavily import API_KEY, FakeResult, FakeTavily
from tests.knowledge.conftest import NOW, KnowledgeOnly, make_context

QUERY = "Discord サーバーブースト 特典"
RESULTS = [
    FakeResult(
        "Server Boosting FAQ",
        "https://support.example.com/boosting",
        "Boosted servers get better audio quality, more emoji slots and a custom invite link.",
    ),
    FakeResult(
        "サーバーブーストの特典まとめ",
        "https://blog.example.jp/boost",
        "ブーストするとサーバーの絵文字枠が増え、配信画質も上がります。",
    ),
]


@pytest.fixture
async def tavily() -> AsyncIterator[FakeTavily]:
    async with FakeTavily() as server:
        server.answer_for(QUERY, RESULTS, answer="ブーストで絵文字枠と音質が上がります。")
        yield server


@pytest.fixture
def web_settings(kb_dir: Path, tavily: FakeTavily) -> Settings:
    return Settings(
        knowledge_base_dir=kb_dir,
        tavily_api_key=API_KEY,
        tavily_api_base=tavily.url,
        kb_max_file_bytes=100_000,
    )


@pytest.fixture
def ctx(
    web_settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
    index: KnowledgeIndex,
) -> ToolContext[KnowledgeOnly]:
    return make_context(web_settings, sessions, clock, index)


def test_no_web_tool_is_offered_without_an_api_key(kb_dir: Path) -> None:
    assert web_tools(Settings(knowledge_base_dir=kb_dir)) == []
    assert web_tools(Settings(knowledge_base_dir=kb_dir, tavily_api_key="  ")) == []
    assert web_tools(Settings(tavily_api_key=API_KEY)) == [web_search]


def test_web_search_needs_approval() -> None:
    assert web_search.requires_approval is True


async def test_results_come_back_with_numbered_sources_and_the_answer(
    ctx: ToolContext[KnowledgeOnly], tavily: FakeTavily
) -> None:
    outcome = await execute(web_search, ctx, {"query": QUERY})

    assert not outcome.is_error, outcome.output
    assert outcome.output["answer"] == "ブーストで絵文字枠と音質が上がります。"
    assert [(r["n"], r["url"]) for r in outcome.output["results"]] == [
        (1, "https://support.example.com/boosting"),
        (2, "https://blog.example.jp/boost"),
    ]
    assert outcome.output["results"][0]["title"] == "Server Boosting FAQ"
    assert "emoji" in outcome.output["results"][0]["snippet"]
    assert tavily.requests[0]["query"] == QUERY
    assert tavily.requests[0]["include_answer"] is True


async def test_each_search_is_saved_as_markdown_with_its_sources(
    ctx: ToolContext[KnowledgeOnly], kb_dir: Path, sessions: async_sessionmaker[AsyncSession]
) -> None:
    outcome = await execute(web_search, ctx, {"query": QUERY})

    relative = archive_path(QUERY, NOW.date())  # 09:00 in Tokyo: the same day
    assert relative == "web_search/2025-11-30-discord-サーバーブースト-特典.md"
    # Archived in the asking server's own folder (the context's server is 1).
    assert outcome.output["saved_to"] == f"knowledge_base/servers/1/{relative}"
    text = (kb_dir / "servers" / "1" / relative).read_text("utf-8")
    front, body, _ = parse_front_matter(text)
    assert front == {
        "title": f"Web検索: {QUERY}",
        "tags": ["web_search"],
        "date": "2025-11-30",
        "query": QUERY,
    }
    assert "1. [Server Boosting FAQ](https://support.example.com/boosting)" in body
    assert "2. [サーバーブーストの特典まとめ](https://blog.example.jp/boost)" in body
    assert "ブーストで絵文字枠と音質が上がります。" in body
    changes = await list_changes(sessions, ServerScope.of(1), relative)
    assert [(c.action, c.user_id, c.guild_id) for c in changes] == [
        (ChangeAction.WEB_SEARCH, 111, 1)
    ]
    assert await list_changes(sessions, ServerScope.of(2), relative) == []


async def test_a_later_question_finds_the_saved_search_in_the_knowledge_base(
    ctx: ToolContext[KnowledgeOnly],
) -> None:
    await execute(web_search, ctx, {"query": QUERY})

    outcome = await execute(search_knowledge, ctx, {"query": "ブーストすると絵文字は増える？"})

    first = outcome.output["results"][0]
    assert first["source"].startswith("knowledge_base/servers/1/web_search/2025-11-30-")
    assert first["saved_web_search"] is True


async def test_another_server_and_a_dm_never_find_a_servers_saved_search(
    ctx: ToolContext[KnowledgeOnly], kb_dir: Path
) -> None:
    await execute(web_search, ctx, {"query": QUERY})
    question = {"query": "ブーストすると絵文字は増える？"}

    elsewhere = await execute(search_knowledge, replace(ctx, guild_id=2), question)
    in_dm = await execute(search_knowledge, replace(ctx, guild_id=None), question)

    found = [r["source"] for r in [*elsewhere.output["results"], *in_dm.output["results"]]]
    assert found and not [source for source in found if "/servers/" in source]


async def test_a_search_in_a_dm_is_answered_but_not_saved(
    ctx: ToolContext[KnowledgeOnly], kb_dir: Path
) -> None:
    outcome = await execute(web_search, replace(ctx, guild_id=None), {"query": QUERY})

    assert outcome.output["results"] and "saved_to" not in outcome.output
    assert not (kb_dir / "servers").exists() and not (kb_dir / "web_search").exists()


@pytest.mark.parametrize(
    ("status", "sentence"),
    [
        (401, "rejected the bot's API key"),
        (429, "rate-limited or out of credits"),
        (432, "access refused"),
        (500, "could not be reached or failed (HTTP 500)"),
        (400, "Retry once with a shorter query"),
    ],
)
async def test_tavily_errors_become_sentences_for_the_model(
    ctx: ToolContext[KnowledgeOnly], tavily: FakeTavily, kb_dir: Path, status: int, sentence: str
) -> None:
    tavily.fail_status = status

    outcome = await execute(web_search, ctx, {"query": QUERY})

    assert outcome.is_error
    assert sentence in outcome.output
    assert not (kb_dir / "servers").exists()


async def test_a_wrong_key_is_reported_as_misconfiguration(
    kb_dir: Path,
    tavily: FakeTavily,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
    index: KnowledgeIndex,
) -> None:
    settings = Settings(
        knowledge_base_dir=kb_dir, tavily_api_key="tvly-wrong", tavily_api_base=tavily.url
    )

    ctx = make_context(settings, sessions, clock, index)
    outcome = await execute(web_search, ctx, {"query": QUERY})

    assert outcome.is_error and "TAVILY_API_KEY" in outcome.output


async def test_a_hanging_service_times_out_with_a_sentence(
    ctx: ToolContext[KnowledgeOnly], tavily: FakeTavily, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(web_search_module, "REQUEST_TIMEOUT_SECONDS", 0.2)
    tavily.hang = True

    outcome = await execute(web_search, ctx, {"query": QUERY})

    assert outcome.is_error and "timed out" in outcome.output


async def test_an_unreachable_service_is_a_sentence_not_a_crash(
    kb_dir: Path,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
    index: KnowledgeIndex,
) -> None:
    # A port nobody listens on (the fake was never started).
    settings = Settings(
        knowledge_base_dir=kb_dir, tavily_api_key=API_KEY, tavily_api_base="http://127.0.0.1:9"
    )

    ctx = make_context(settings, sessions, clock, index)
    outcome = await execute(web_search, ctx, {"query": QUERY})

    assert outcome.is_error and "could not be reached" in outcome.output


async def test_an_empty_result_is_not_saved(
    ctx: ToolContext[KnowledgeOnly], tavily: FakeTavily, kb_dir: Path
) -> None:
    tavily.answer_for("xyzzy", [])

    outcome = await execute(web_search, ctx, {"query": "xyzzy"})

    assert outcome.output["results"] == [] and "found nothing" in outcome.output["note"]
    assert not (kb_dir / "servers").exists()


def test_slugs_keep_japanese_and_drop_punctuation() -> None:
    assert slugify("明日の 東京・天気？") == "明日の-東京-天気"
    assert slugify("What's new in Python 3.13?") == "what-s-new-in-python-3-13"
    assert slugify("../../etc/passwd") == "etc-passwd"
    assert slugify("？！") == "search"
    assert len(slugify("あ" * 100)) == 40
