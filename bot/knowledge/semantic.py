"""Semantic retrieval beside BM25: section vectors in memory, a question's nearest sections, and
the fusion of both rankings.

Used only when an embedder is configured. Sections are embedded once per text (cached in the
database, see embeddings.py); a question costs one embedding request, and none when the same
question was embedded a moment ago or the endpoint failed within the last minute.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from operator import mul

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.knowledge.embeddings import (
    BATCH_TEXTS,
    Embedder,
    EmbeddingFailure,
    Vector,
    forget_vectors,
    load_vectors,
    store_vectors,
    text_hash,
)
from bot.runtime.clock import Clock
from bot.runtime.worker import in_worker

log = logging.getLogger(__name__)

# Reciprocal rank fusion: a section's fused score is the sum of 1 / (RRF_K + rank) over the
# rankings that found it. 60 is the constant of the original paper; it keeps one ranking's top
# from drowning what both rankings agree on.
RRF_K = 60
# Sections taken from each ranking before fusing.
CANDIDATES = 30
# The embedding ranking counts 1 - (BM25's best relevance), at least this: when BM25 matched most
# of the question it leads and the embeddings only break near-ties; when it matched little, the
# embeddings count almost as much. (A stand-in model that is right for 60 % of the questions made
# plain fusion worse than BM25 alone on the first batch; this way it is not.)
SEMANTIC_WEIGHT_FLOOR = 0.2
# Seconds the semantic side rests after the endpoint failed: questions meanwhile get BM25 at once
# instead of waiting for a timeout each.
COOLDOWN = timedelta(seconds=60)
# Questions whose vectors are remembered (the prompt's excerpts and a search tool call often ask
# the same text within one answer).
QUESTION_CACHE = 256
# A section's title, headings and body are embedded together, cut here (a few hundred tokens).
EMBEDDED_CHARS = 2000


def embedding_text(title: str, heading: str, text: str) -> str:
    """What is embedded for a section: its file's title, its headings and its body."""
    head = heading if heading.startswith(title) else f"{title} > {heading}" if heading else title
    return f"{head}\n{text}"[:EMBEDDED_CHARS]


def nearest(
    vectors: Sequence[tuple[int, Vector]], query: Vector, limit: int, floor: float
) -> list[tuple[int, float]]:
    """The sections closest to query (cosine of unit vectors) at or above floor, best first."""
    scored = []
    for doc_id, vector in vectors:
        if len(vector) != len(query):
            continue  # embedded by another model or size: never comparable
        similarity = sum(map(mul, vector, query))
        if similarity >= floor:
            scored.append((doc_id, similarity))
    scored.sort(key=lambda item: -item[1])
    return scored[:limit]


@dataclass(frozen=True, slots=True)
class Fused:
    """A section found by a ranking: its score, and the relevance to show and filter by."""

    doc_id: int
    score: float
    relevance: float


def fuse(
    lexical: Sequence[Fused], semantic: Sequence[tuple[int, float]], limit: int
) -> list[Fused]:
    """Reciprocal rank fusion of the BM25 and the embedding rankings, the embeddings weighted
    by how little of the question BM25 matched (see SEMANTIC_WEIGHT_FLOOR).

    A section's relevance is the larger of its BM25 share and its cosine similarity, so a section
    found only by its meaning still passes the prompt's relevance threshold. Ties keep BM25's
    order.
    """
    scores: dict[int, float] = {}
    relevance: dict[int, float] = {}
    order: dict[int, int] = {}
    for rank, hit in enumerate(lexical):
        scores[hit.doc_id] = 1.0 / (RRF_K + rank + 1)
        relevance[hit.doc_id] = hit.relevance
        order[hit.doc_id] = rank
    weight = max(SEMANTIC_WEIGHT_FLOOR, 1.0 - (lexical[0].relevance if lexical else 0.0))
    for rank, (doc_id, similarity) in enumerate(semantic):
        scores[doc_id] = scores.get(doc_id, 0.0) + weight / (RRF_K + rank + 1)
        relevance[doc_id] = max(relevance.get(doc_id, 0.0), similarity)
        order.setdefault(doc_id, len(lexical) + rank)
    best = sorted(scores, key=lambda doc: (-scores[doc], order[doc]))[:limit]
    return [Fused(doc, scores[doc], min(1.0, relevance[doc])) for doc in best]


class SectionVectors:
    """Section id → unit vector, with a snapshot the text worker can read while the loop edits."""

    def __init__(self) -> None:
        self._vectors: dict[int, Vector] = {}
        self._snapshot: tuple[tuple[int, Vector], ...] | None = ()

    def __len__(self) -> int:
        return len(self._vectors)

    def add(self, doc_id: int, vector: Vector) -> None:
        """Remember a section's vector."""
        self._vectors[doc_id] = vector
        self._snapshot = None

    def remove(self, doc_id: int) -> None:
        """Forget a section (unknown ids are ignored)."""
        if self._vectors.pop(doc_id, None) is not None:
            self._snapshot = None

    def snapshot(self) -> tuple[tuple[int, Vector], ...]:
        """Every (id, vector), frozen: safe to search on another thread."""
        if self._snapshot is None:
            self._snapshot = tuple(self._vectors.items())
        return self._snapshot


class QuestionVectors:
    """A question's vector: one request, remembered a while, skipped while the endpoint rests."""

    def __init__(self, embedder: Embedder, clock: Clock) -> None:
        self._embedder = embedder
        self._clock = clock
        self._cache: OrderedDict[str, Vector] = OrderedDict()
        self._resting_until: datetime | None = None

    async def vector(self, question: str) -> Vector | None:
        """The question's vector, or None (BM25 alone answers) when the endpoint failed."""
        cached = self._cache.get(question)
        if cached is not None:
            self._cache.move_to_end(question)
            return cached
        if self._resting_until is not None and self._clock.now() < self._resting_until:
            return None
        try:
            (vector,) = await self._embedder.embed([question], kind="query")
        except EmbeddingFailure as exc:
            self._resting_until = self._clock.now() + COOLDOWN
            log.warning(
                "Embedding a question failed (%s); knowledge search uses BM25 alone for %d s",
                exc,
                COOLDOWN.total_seconds(),
            )
            return None
        self._cache[question] = vector
        if len(self._cache) > QUESTION_CACHE:
            self._cache.popitem(last=False)
        return vector


class SemanticSearch:
    """The semantic side of the knowledge index: which sections still need a vector, embedding
    them (from the cache when it has them), and a question's nearest sections."""

    def __init__(
        self,
        embedder: Embedder,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        min_similarity: float,
    ) -> None:
        self._embedder = embedder
        self._sessions = sessions
        self._clock = clock
        self._min_similarity = min_similarity
        self._vectors = SectionVectors()
        self._questions = QuestionVectors(embedder, clock)
        # Section id → (text hash, text) of every section, and those still without a vector.
        self._texts: dict[int, tuple[str, str]] = {}
        self._pending: set[int] = set()
        self._lock = asyncio.Lock()
        self._resting_until: datetime | None = None

    @property
    def embedded(self) -> int:
        """How many sections have a vector."""
        return len(self._vectors)

    def add(self, doc_id: int, text: str) -> None:
        """A section joined the index: it needs a vector."""
        self._texts[doc_id] = (text_hash(text), text)
        self._pending.add(doc_id)

    def remove(self, doc_id: int) -> None:
        """A section left the index."""
        self._texts.pop(doc_id, None)
        self._pending.discard(doc_id)
        self._vectors.remove(doc_id)

    async def embed_pending(self) -> None:
        """Give every new section its vector: from the cache, else from the endpoint in batches.

        A failing endpoint leaves the rest pending for the next refresh; BM25 serves meanwhile.
        """
        async with self._lock:
            wanted = {doc: self._texts[doc] for doc in self._pending if doc in self._texts}
            if not wanted or (self._resting_until and self._clock.now() < self._resting_until):
                return
            model = self._embedder.cache_key
            known = await load_vectors(
                self._sessions, model, sorted({h for h, _ in wanted.values()})
            )
            missing = {h: text for h, text in wanted.values() if h not in known}
            hashes = sorted(missing)
            for start in range(0, len(hashes), BATCH_TEXTS):
                batch = hashes[start : start + BATCH_TEXTS]
                try:
                    vectors = await self._embedder.embed([missing[h] for h in batch])
                except EmbeddingFailure as exc:
                    self._resting_until = self._clock.now() + COOLDOWN
                    log.warning(
                        "Embedding %d knowledge-base sections failed (%s); retrying at the next "
                        "refresh after %d s, BM25 alone finds them meanwhile",
                        len(hashes) - start,
                        exc,
                        COOLDOWN.total_seconds(),
                    )
                    break
                fresh = dict(zip(batch, vectors, strict=True))
                await store_vectors(self._sessions, model, fresh, self._clock.now())
                known.update(fresh)
            for doc, (digest, _) in wanted.items():
                vector = known.get(digest)
                # The section may have been replaced while its text was being embedded.
                if vector is not None and self._texts.get(doc, ("",))[0] == digest:
                    self._vectors.add(doc, vector)
                    self._pending.discard(doc)

    async def forget_stale(self) -> None:
        """Drop cached vectors of texts no section has any more (after a full load)."""
        keep = {digest for digest, _ in self._texts.values()}
        removed = await forget_vectors(self._sessions, self._embedder.cache_key, keep)
        if removed:
            log.info("Forgot %d embeddings of texts no longer in the knowledge base", removed)

    async def nearest(self, question: str, limit: int = CANDIDATES) -> list[tuple[int, float]]:
        """The sections nearest the question's meaning (one embedding request at most)."""
        if not self._vectors:
            return []
        vector = await self._questions.vector(question)
        if vector is None:
            return []
        return await in_worker(
            nearest, self._vectors.snapshot(), vector, limit, self._min_similarity
        )
