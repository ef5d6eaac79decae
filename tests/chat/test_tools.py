"""The recent_topics tool as the agent runs it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from zoneinfo import ZoneInfo

import pytest

from bot.agent.tools import ToolContext, execute, parse_arguments
from bot.chat.tools import CHAT_TOOLS
from bot.chat.word_pool import WordPool
from bot.runtime.clock import ManualClock
from bot.settings import Settings
from bot.storage.engine import Database

# The server whose members talk in these tests (the context's).
GUILD = 20


@dataclass(frozen=True)
class PoolOnly:
    """The part of the bot's dependencies recent_topics uses."""

    word_pool: WordPool


@pytest.fixture
def pool(db: Database, clock: ManualClock, settings: Settings) -> WordPool:
    return WordPool(db.sessions, clock, settings)


@pytest.fixture
async def ctx(
    db: Database, clock: ManualClock, settings: Settings, pool: WordPool
) -> AsyncIterator[ToolContext[PoolOnly]]:
    yield ToolContext(
        user_id=10,
        user_name="hanako",
        guild_id=GUILD,
        channel_id=30,
        clock=clock,
        sessions=db.sessions,
        settings=settings,
        timezone=ZoneInfo("Asia/Tokyo"),
        deps=PoolOnly(pool),
    )


def test_recent_topics_is_read_only() -> None:
    (tool,) = CHAT_TOOLS
    assert tool.name == "recent_topics"
    assert tool.requires_approval is False


async def test_the_tool_sees_words_of_the_live_pool_not_yet_saved(
    pool: WordPool, ctx: ToolContext[PoolOnly]
) -> None:
    pool.observe("サウナとサウナ飯", 1, GUILD)
    pool.observe("サウナ", 1, GUILD)
    (tool,) = CHAT_TOOLS
    outcome = await execute(tool, ctx, {"limit": 2})
    assert outcome.is_error is False
    assert outcome.output["topics"] == [
        {"word": "サウナ", "score": 2.0},
        {"word": "サウナ飯", "score": 1.0},
    ]


async def test_the_tool_reads_words_already_saved(
    pool: WordPool, ctx: ToolContext[PoolOnly]
) -> None:
    pool.observe("キャンプ", 1, GUILD)
    await pool.flush()
    outcome = await execute(CHAT_TOOLS[0], ctx, {})
    assert [t["word"] for t in outcome.output["topics"]] == ["キャンプ"]


async def test_the_tool_never_sees_another_servers_words(
    pool: WordPool, ctx: ToolContext[PoolOnly]
) -> None:
    pool.observe("競馬", 1, GUILD + 1)
    await pool.flush()
    pool.observe("競艇", 1, GUILD + 1)
    outcome = await execute(CHAT_TOOLS[0], ctx, {})
    assert outcome.output["topics"] == []


def test_a_limit_out_of_range_is_refused_to_the_model() -> None:
    arguments, problem = parse_arguments(CHAT_TOOLS[0], '{"limit": 100}')
    assert arguments is None
    assert problem is not None and "limit" in problem
