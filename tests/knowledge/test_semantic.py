"""Semantic retrieval: section embeddings fused with BM25, against a scripted embedding endpoint.

The endpoint's vectors have one axis per keyword group (`keyword_vectors`), so a question and a
section are close exactly when they name the same group: that makes each fusion effect visible.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.knowledge import semantic
from bot.knowledge.embeddings import LiteLLMEmbedder
from bot.knowledge.index import KnowledgeIndex
from bot.knowledge.table import KnowledgeEmbedding
from bot.runtime.clock import ManualClock
from bot.servers import ServerScope
from bot.settings import Settings
from tests.fakes.embedding_server import ScriptedEmbeddings, keyword_vectors
from tests.knowledge.conftest import remembered_analysis, write_files

MODEL = "openai/test-embed"
# Axis 0: giving money (the support page, and "coffee" in a question); axis 1: the rules page;
# axis 2: voice chat. Texts naming none point along a last, shared axis.
AXES = [["支援", "coffee"], ["禁止", "forbidden"], ["通話", "walkie"]]
FILES = {
    "support": "# サーバーの支援\n\n## 支援のしかた\n\nKo-fi のページから 1 回 300 円から支援。",
    "rules": "# ルール\n\n## 禁止事項\n\n荒らしと宣伝は禁止です。宣伝は告知チャンネルでどうぞ。",
    "voice": "# 通話\n\n## 通話の入り方\n\nボイスチャンネルで通話に入れます。宣伝はしないでね。",
}


@pytest.fixture
async def endpoint() -> AsyncIterator[ScriptedEmbeddings]:
    async with ScriptedEmbeddings(keyword_vectors(AXES)) as server:
        yield server


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    return write_files(tmp_path / "knowledge_base", **FILES)


@pytest.fixture
def make_index(
    kb: Path,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
    endpoint: ScriptedEmbeddings,
) -> Callable[[], KnowledgeIndex]:
    def build() -> KnowledgeIndex:
        embedder = LiteLLMEmbedder(MODEL, api_base=endpoint.api_base, api_key="test")
        return KnowledgeIndex(
            kb, sessions, clock, analyse=remembered_analysis, embedder=embedder, min_similarity=0.5
        )

    return build


def _paths(hits: list[object]) -> list[str]:
    return [hit.path for hit in hits]


async def test_a_question_in_other_words_finds_its_section_by_meaning(
    make_index: Callable[[], KnowledgeIndex],
) -> None:
    index = make_index()
    await index.load()

    assert index.search("Can I buy the owners a coffee?", 3) == []
    hits = await index.query("Can I buy the owners a coffee?", 3)

    assert _paths(hits) == ["support.md"]
    assert hits[0].relevance >= 0.5


async def test_a_section_both_rankings_find_beats_one_that_only_bm25_ranks_first(
    make_index: Callable[[], KnowledgeIndex],
) -> None:
    index = make_index()
    await index.load()

    # BM25 alone: 宣伝 is said twice on the rules page, once on the voice page.
    question = "walkie talkieで宣伝していい？"
    assert _paths(index.search(question, 3))[:2] == ["rules.md", "voice.md"]
    # The question's meaning (the voice axis) agrees with BM25's second: fused, it comes first.
    assert _paths(await index.query(question, 3))[:2] == ["voice.md", "rules.md"]


async def test_sections_far_from_the_question_leave_the_bm25_ranking_as_it_is(
    make_index: Callable[[], KnowledgeIndex],
) -> None:
    index = make_index()
    await index.load()

    # The question names no axis: every section is orthogonal to it, below the minimum.
    question = "宣伝はどこでする？"
    assert _paths(await index.query(question, 3)) == _paths(index.search(question, 3))


async def test_each_question_costs_one_embedding_request_and_a_repeat_none(
    make_index: Callable[[], KnowledgeIndex], endpoint: ScriptedEmbeddings
) -> None:
    index = make_index()
    await index.load()
    before = len(endpoint.requests)

    await index.query("coffee for the owners?", 3)
    await index.query("what is forbidden here?", 3)
    await index.query("coffee for the owners?", 3)

    asked = endpoint.requests[before:]
    assert [r.inputs for r in asked] == [("coffee for the owners?",), ("what is forbidden here?",)]


async def test_section_embeddings_are_cached_per_text_across_restarts_and_edits(
    make_index: Callable[[], KnowledgeIndex], endpoint: ScriptedEmbeddings, kb: Path
) -> None:
    await make_index().load()
    assert len(endpoint.inputs()) == 3  # one section per file
    before = len(endpoint.requests)

    restarted = make_index()
    await restarted.load()
    assert endpoint.requests[before:] == []

    (kb / "rules.md").write_text(FILES["rules"] + "\n\n## 追記\n\nスパムも禁止です。", "utf-8")
    await restarted.refresh()

    embedded = [text for r in endpoint.requests[before:] for text in r.inputs]
    assert len(embedded) == 1 and "スパムも禁止です" in embedded[0]
    assert _paths(await restarted.query("forbidden things?", 1)) == ["rules.md"]


async def test_embeddings_of_texts_no_file_has_any_more_are_dropped_at_load(
    make_index: Callable[[], KnowledgeIndex],
    kb: Path,
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    await make_index().load()
    (kb / "voice.md").unlink()

    await make_index().load()

    async with sessions() as session:
        count = await session.scalar(select(func.count()).select_from(KnowledgeEmbedding))
    assert count == 2


async def test_a_failing_endpoint_leaves_bm25_answering_and_is_retried_a_minute_later(
    make_index: Callable[[], KnowledgeIndex],
    endpoint: ScriptedEmbeddings,
    clock: ManualClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    endpoint.fail_with = 400  # refused at once (a 5xx would be retried by the client first)
    index = make_index()
    await index.load()

    question = "通話で宣伝していい？"
    assert _paths(await index.query(question, 3)) == _paths(index.search(question, 3))
    assert "Embedding 3 knowledge-base sections failed" in caplog.text

    endpoint.fail_with = None
    asked = len(endpoint.requests)
    await index.refresh()
    assert len(endpoint.requests) == asked  # resting: no request within the minute
    clock.advance(semantic.COOLDOWN)
    await index.refresh()
    assert _paths(await index.query("coffee?", 1)) == ["support.md"]


async def test_a_question_whose_embedding_fails_is_answered_by_bm25_and_the_next_asks_none(
    make_index: Callable[[], KnowledgeIndex], endpoint: ScriptedEmbeddings
) -> None:
    index = make_index()
    await index.load()
    endpoint.fail_with = 400
    asked = len(endpoint.requests)

    question = "walkie talkieで宣伝していい？"
    assert _paths(await index.query(question, 3)) == _paths(index.search(question, 3))
    assert _paths(await index.query("coffee?", 3)) == []

    assert len(endpoint.requests) == asked + 1


async def test_without_an_embedding_model_no_request_is_made_and_bm25_ranks_alone(
    kb: Path,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
    endpoint: ScriptedEmbeddings,
    make_settings: Callable[..., Settings],
) -> None:
    settings = make_settings(KNOWLEDGE_BASE_DIR=kb, EMBEDDING_API_BASE=endpoint.api_base)
    index = KnowledgeIndex.from_settings(settings, sessions, clock)
    await index.load()

    hits = await index.query("通話で宣伝していい？", 3)

    assert _paths(hits) == _paths(index.search("通話で宣伝していい？", 3))
    assert endpoint.requests == []


def test_the_embedding_settings_name_the_model_endpoint_and_key(
    make_settings: Callable[..., Settings],
) -> None:
    assert LiteLLMEmbedder.from_settings(make_settings()) is None
    embedder = LiteLLMEmbedder.from_settings(
        make_settings(
            EMBEDDING_MODEL="openai/nomic-embed-text",
            EMBEDDING_API_BASE="http://127.0.0.1:11434/v1/",
            LLM_API_KEY="sk-shared",
            EMBEDDING_DIMENSIONS="256",
        )
    )
    assert embedder == LiteLLMEmbedder(
        "openai/nomic-embed-text",
        api_base="http://127.0.0.1:11434/v1",
        api_key="sk-shared",
        dimensions=256,
    )


async def test_by_meaning_too_a_server_finds_its_own_files_and_never_another_servers(
    make_index: Callable[[], KnowledgeIndex], kb: Path
) -> None:
    (kb / "servers" / "111").mkdir(parents=True)
    (kb / "support.md").rename(kb / "servers" / "111" / "support.md")
    index = make_index()
    await index.load()
    question = "Can I buy the owners a coffee?"

    mine = await index.query(question, 3, scope=ServerScope.of(111))
    theirs = await index.query(question, 3, scope=ServerScope.of(222))
    in_dm = await index.query(question, 3)

    assert _paths(mine) == ["servers/111/support.md"]
    assert theirs == [] and in_dm == []
