"""The search_knowledge tool as the agent runs it."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.agent.tools import execute, parse_arguments
from bot.knowledge import KNOWLEDGE_TOOLS, read_knowledge, search_knowledge
from bot.knowledge.index import KnowledgeIndex
from bot.runtime.clock import ManualClock
from bot.settings import Settings
from tests.knowledge.conftest import make_context


def test_the_knowledge_tools_are_read_only_and_exported() -> None:
    assert [search_knowledge, read_knowledge] == KNOWLEDGE_TOOLS
    assert not any(t.requires_approval for t in KNOWLEDGE_TOOLS)
    assert all(t.read_only for t in KNOWLEDGE_TOOLS)
    assert set(search_knowledge.parameters["properties"]) == {"query", "also", "limit"}
    assert set(read_knowledge.parameters["properties"]) == {"page", "section"}


async def test_the_tool_returns_sections_with_sources_from_the_registered_index(
    index: KnowledgeIndex,
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
) -> None:
    ctx = make_context(settings, sessions, clock, index)
    arguments, error = parse_arguments(search_knowledge, json.dumps({"query": "report spam"}))
    assert error is None and arguments is not None

    outcome = await execute(search_knowledge, ctx, arguments)

    assert not outcome.is_error
    first = outcome.output["results"][0]
    assert first["source"] == "knowledge_base/moderation.md"
    assert first["heading"] == "Moderation guide > Reporting spam and abuse"
    assert first["score"] > 0 and "report" in first["snippet"].lower()
    assert "出典" in outcome.output["note"]


async def test_an_index_nobody_started_is_loaded_on_first_use_as_in_console_mode(
    kb_dir: Path,
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
) -> None:
    idle = KnowledgeIndex(kb_dir, sessions, clock)
    ctx = make_context(settings, sessions, clock, idle)
    try:
        outcome = await execute(
            search_knowledge, ctx, {"query": "ニックネームを変えたい", "limit": 1}
        )
    finally:
        await idle.stop()

    assert [r["source"] for r in outcome.output["results"]] == ["knowledge_base/faq.md"]
    assert idle.ready


async def test_no_match_tells_the_model_not_to_guess(
    index: KnowledgeIndex,
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
) -> None:
    outcome = await execute(
        search_knowledge,
        make_context(settings, sessions, clock, index),
        {"query": "量子コンピュータ"},
    )

    assert outcome.output["results"] == []
    assert "does not cover" in outcome.output["note"]


async def test_an_empty_query_is_an_error_for_the_model(
    index: KnowledgeIndex,
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
) -> None:
    outcome = await execute(
        search_knowledge, make_context(settings, sessions, clock, index), {"query": " "}
    )

    assert outcome.is_error
    assert "query is empty" in outcome.output


async def test_limit_is_kept_between_one_and_ten(
    index: KnowledgeIndex,
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
) -> None:
    ctx = make_context(settings, sessions, clock, index)

    many = await execute(search_knowledge, ctx, {"query": "サーバー", "limit": 50})
    one = await execute(search_knowledge, ctx, {"query": "サーバー", "limit": 0})

    assert 1 < len(many.output["results"]) <= 10
    assert len(one.output["results"]) == 1
