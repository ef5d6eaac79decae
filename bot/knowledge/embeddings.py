"""Embeddings of sections and questions through litellm, and their cache in `kb_embeddings`.

Only used when EMBEDDING_MODEL is set. A section's vector is stored under the hash of the
exact text embedded and the embedder's cache key (the model, and the page prefix and input type
when set), so an unchanged section is never embedded twice, across edits of its file and restarts
alike, and changing the prefix re-embeds every page.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Protocol, TypeAlias

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.agent.llm.provider import import_litellm
from bot.knowledge.table import KnowledgeEmbedding
from bot.settings import Settings

# Texts per embedding request: providers cap a request's inputs (OpenAI: 2,048).
BATCH_TEXTS = 64
_ROWS_PER_QUERY = 500

# Unit length, float32 ("f"); a string so Python 3.11 need not subscript array at run time.
Vector: TypeAlias = "array[float]"


class EmbeddingFailure(Exception):
    """The embedding endpoint failed or answered something that is not one vector per text."""


# Questions and pages: e5-, bge- and retrieval-tuned provider models embed them differently.
Kind: TypeAlias = Literal["query", "document"]


class Embedder(Protocol):
    """Turns texts into vectors (one request per call)."""

    @property
    def cache_key(self) -> str:
        """The model and how pages are sent to it: vectors of another key are not comparable."""
        ...

    async def embed(self, texts: Sequence[str], kind: Kind = "document") -> list[Vector]:
        """One unit vector per text, in order, each sent as the model expects its kind."""
        ...


def unit(values: Iterable[float]) -> Vector:
    """The vector scaled to length 1 (a zero vector stays zero), as float32."""
    vector: Vector = array("f", values)
    norm = math.sqrt(sum(v * v for v in vector))
    if norm:
        vector = array("f", (v / norm for v in vector))
    return vector


@dataclass(frozen=True)
class LiteLLMEmbedder:
    """`litellm.aembedding` with the EMBEDDING_* settings."""

    model: str
    api_base: str | None = None
    api_key: str | None = None
    dimensions: int | None = None
    timeout_seconds: float = 10.0
    query_prefix: str = ""
    document_prefix: str = ""
    query_input_type: str = ""
    document_input_type: str = ""

    @property
    def cache_key(self) -> str:
        """The model's name, with a digest of the page prefix and input type when set."""
        if not self.document_prefix and not self.document_input_type:
            return self.model
        how = hashlib.sha256(
            f"{self.document_prefix}\x00{self.document_input_type}".encode()
        ).hexdigest()
        return f"{self.model}#{how[:12]}"

    @classmethod
    def from_settings(cls, settings: Settings) -> LiteLLMEmbedder | None:
        """The embedder EMBEDDING_MODEL names, or None when semantic retrieval is off."""
        if not settings.embedding_model:
            return None
        key = settings.embedding_api_key or settings.llm_api_key
        return cls(
            model=settings.embedding_model,
            api_base=settings.embedding_api_base,
            api_key=key.get_secret_value() if key else None,
            dimensions=settings.embedding_dimensions,
            timeout_seconds=settings.embedding_timeout_seconds,
            query_prefix=settings.embedding_query_prefix,
            document_prefix=settings.embedding_document_prefix,
            query_input_type=settings.embedding_query_input_type,
            document_input_type=settings.embedding_document_input_type,
        )

    async def embed(self, texts: Sequence[str], kind: Kind = "document") -> list[Vector]:
        """One request for all texts, prefixed for their kind; EmbeddingFailure when it fails."""
        if not texts:
            return []
        prefix = self.query_prefix if kind == "query" else self.document_prefix
        input_type = self.query_input_type if kind == "query" else self.document_input_type
        params: dict[str, Any] = {"timeout": self.timeout_seconds}
        if input_type:
            params["input_type"] = input_type
        if self.api_base:
            params["api_base"] = self.api_base
        if self.api_key:
            params["api_key"] = self.api_key
        if self.dimensions:
            params["dimensions"] = self.dimensions
        litellm = import_litellm()
        try:
            response = await litellm.aembedding(
                model=self.model, input=[prefix + text for text in texts], **params
            )
        except Exception as exc:
            raise EmbeddingFailure(f"{type(exc).__name__}: {exc}") from exc
        items = sorted(response.data, key=lambda item: _field(item, "index"))
        if len(items) != len(texts):
            raise EmbeddingFailure(f"asked for {len(texts)} embeddings, got {len(items)}")
        return [unit(_field(item, "embedding")) for item in items]


def _field(item: Any, name: str) -> Any:
    return item[name] if isinstance(item, dict) else getattr(item, name)


def text_hash(text: str) -> str:
    """The cache key of an embedded text (SHA-256, hex)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


async def load_vectors(
    sessions: async_sessionmaker[AsyncSession], model: str, hashes: Sequence[str]
) -> dict[str, Vector]:
    """The cached vectors of these text hashes for model."""
    found: dict[str, Vector] = {}
    async with sessions() as session:
        for start in range(0, len(hashes), _ROWS_PER_QUERY):
            batch = hashes[start : start + _ROWS_PER_QUERY]
            rows = await session.execute(
                select(KnowledgeEmbedding.text_hash, KnowledgeEmbedding.vector).where(
                    KnowledgeEmbedding.model == model, KnowledgeEmbedding.text_hash.in_(batch)
                )
            )
            for digest, blob in rows:
                vector: Vector = array("f")
                vector.frombytes(blob)
                found[digest] = vector
    return found


async def store_vectors(
    sessions: async_sessionmaker[AsyncSession],
    model: str,
    vectors: dict[str, Vector],
    now: datetime,
) -> None:
    """Insert vectors by text hash (rows another process stored meanwhile are kept)."""
    if not vectors:
        return
    try:
        await _insert(sessions, model, vectors, now)
    except IntegrityError:
        # Another process embedded some of the same texts at the same time: keep its rows.
        for digest, vector in vectors.items():
            with contextlib.suppress(IntegrityError):
                await _insert(sessions, model, {digest: vector}, now)


async def _insert(
    sessions: async_sessionmaker[AsyncSession],
    model: str,
    vectors: dict[str, Vector],
    now: datetime,
) -> None:
    async with sessions() as session, session.begin():
        existing = set(
            await session.scalars(
                select(KnowledgeEmbedding.text_hash).where(
                    KnowledgeEmbedding.model == model,
                    KnowledgeEmbedding.text_hash.in_(list(vectors)),
                )
            )
        )
        session.add_all(
            KnowledgeEmbedding(
                model=model,
                text_hash=digest,
                dimensions=len(vector),
                vector=vector.tobytes(),
                created_at=now,
            )
            for digest, vector in vectors.items()
            if digest not in existing
        )


async def forget_vectors(
    sessions: async_sessionmaker[AsyncSession], model: str, keep: set[str]
) -> int:
    """Delete this model's vectors of texts no section has any more, and every other model's."""
    async with sessions() as session, session.begin():
        stale = [
            digest
            for digest in await session.scalars(
                select(KnowledgeEmbedding.text_hash).where(KnowledgeEmbedding.model == model)
            )
            if digest not in keep
        ]
        for start in range(0, len(stale), _ROWS_PER_QUERY):
            await session.execute(
                delete(KnowledgeEmbedding).where(
                    KnowledgeEmbedding.model == model,
                    KnowledgeEmbedding.text_hash.in_(stale[start : start + _ROWS_PER_QUERY]),
                )
            )
        others = await session.execute(
            delete(KnowledgeEmbedding).where(KnowledgeEmbedding.model != model)
        )
    return len(stale) + int(getattr(others, "rowcount", 0) or 0)
