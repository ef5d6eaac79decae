"""Embeddings sent as their models expect: a query prefix on questions, a document prefix on
pages (e5's "query: " / "passage: "), the provider's input_type, and pages re-embedded when the
page prefix changes. Checked on the requests the scripted embedding endpoint receives."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.knowledge.embeddings import LiteLLMEmbedder
from bot.knowledge.index import KnowledgeIndex
from bot.knowledge.table import KnowledgeEmbedding
from bot.runtime.clock import ManualClock
from bot.settings import Settings
from tests.fakes.embedding_server import ScriptedEmbeddings, keyword_vectors
from tests.knowledge.conftest import remembered_analysis, write_files

MODEL = "openai/multilingual-e5-small"
AXES = [["支援", "coffee"], ["禁止", "forbidden"]]
FILES = {
    "support": "# サーバーの支援\n\n## 支援のしかた\n\nKo-fi のページから 1 回 300 円から支援。",
    "rules": "# ルール\n\n## 禁止事項\n\n荒らしと宣伝は禁止です。",
}


@pytest.fixture
async def endpoint() -> AsyncIterator[ScriptedEmbeddings]:
    async with ScriptedEmbeddings(keyword_vectors(AXES)) as server:
        yield server


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    return write_files(tmp_path / "knowledge_base", **FILES)


def _index(
    kb: Path,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
    endpoint: ScriptedEmbeddings,
    **how: str,
) -> KnowledgeIndex:
    embedder = LiteLLMEmbedder(MODEL, api_base=endpoint.api_base, api_key="test", **how)
    return KnowledgeIndex(
        kb, sessions, clock, analyse=remembered_analysis, embedder=embedder, min_similarity=0.5
    )


E5 = {"query_prefix": "query: ", "document_prefix": "passage: "}


async def test_pages_are_sent_with_the_document_prefix_and_questions_with_the_query_prefix(
    kb: Path,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
    endpoint: ScriptedEmbeddings,
) -> None:
    index = _index(kb, sessions, clock, endpoint, **E5)
    await index.load()
    pages = endpoint.inputs()

    hits = await index.query("Can I buy the owners a coffee?", 3)

    assert pages and all(text.startswith("passage: ") for text in pages)
    assert any(text.startswith("passage: サーバーの支援") for text in pages)
    assert endpoint.requests[-1].inputs == ("query: Can I buy the owners a coffee?",)
    assert [hit.path for hit in hits] == ["support.md"]


async def test_without_prefixes_the_texts_are_sent_as_they_are(
    kb: Path,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
    endpoint: ScriptedEmbeddings,
) -> None:
    index = _index(kb, sessions, clock, endpoint)
    await index.load()

    await index.query("coffee?", 3)

    assert endpoint.requests[-1].inputs == ("coffee?",)
    assert not any(text.startswith(("passage: ", "query: ")) for text in endpoint.inputs())
    assert all("input_type" not in request.body for request in endpoint.requests)


async def test_the_providers_input_type_reaches_the_request_for_pages_and_questions(
    kb: Path,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
    endpoint: ScriptedEmbeddings,
) -> None:
    index = _index(
        kb,
        sessions,
        clock,
        endpoint,
        query_input_type="search_query",
        document_input_type="search_document",
    )
    await index.load()
    await index.query("coffee?", 3)

    *pages, question = endpoint.requests
    assert pages and {request.body["input_type"] for request in pages} == {"search_document"}
    assert question.body["input_type"] == "search_query"
    assert question.inputs == ("coffee?",)


async def test_changing_the_page_prefix_re_embeds_every_page_and_forgets_the_old_vectors(
    kb: Path,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
    endpoint: ScriptedEmbeddings,
) -> None:
    plain = _index(kb, sessions, clock, endpoint)
    await plain.load()
    first = len(endpoint.inputs())
    again = _index(kb, sessions, clock, endpoint)
    await again.load()
    assert len(endpoint.inputs()) == first  # same prefix: every vector came from the cache

    prefixed = _index(kb, sessions, clock, endpoint, **E5)
    await prefixed.load()

    resent = endpoint.inputs()[first:]
    assert len(resent) == first and all(text.startswith("passage: ") for text in resent)
    async with sessions() as session:
        keys = set(await session.scalars(select(KnowledgeEmbedding.model)))
    assert keys == {LiteLLMEmbedder(MODEL, **E5).cache_key}


def test_the_prefix_settings_reach_the_embedder(make_settings: Callable[..., Settings]) -> None:
    embedder = LiteLLMEmbedder.from_settings(
        make_settings(
            EMBEDDING_MODEL=MODEL,
            EMBEDDING_QUERY_PREFIX="query: ",
            EMBEDDING_DOCUMENT_PREFIX="passage: ",
            EMBEDDING_QUERY_INPUT_TYPE="query",
            EMBEDDING_DOCUMENT_INPUT_TYPE="passage",
        )
    )

    assert embedder is not None
    assert (embedder.query_prefix, embedder.document_prefix) == ("query: ", "passage: ")
    assert (embedder.query_input_type, embedder.document_input_type) == ("query", "passage")
    assert embedder.cache_key.startswith(f"{MODEL}#")
    assert LiteLLMEmbedder(MODEL).cache_key == MODEL
