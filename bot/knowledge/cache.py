"""The tokenisation cache in `kb_documents`: one analysis per file, keyed by content hash."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.knowledge.analysis import ANALYZER_VERSION, DocumentAnalysis
from bot.knowledge.places import place_of
from bot.knowledge.table import KnowledgeDocument
from bot.storage.engine import write_sessions

_BATCH = 500


@dataclass(frozen=True, slots=True)
class CachedAnalysis:
    """A file's stored analysis and the content hash it was made from."""

    path: str
    content_hash: str
    analysis: DocumentAnalysis


async def load_cache(
    sessions: async_sessionmaker[AsyncSession], paths: Collection[str] | None = None
) -> tuple[dict[str, CachedAnalysis], set[str]]:
    """Analyses by the current analyser (for paths, or all), and every path that has a row."""
    columns = (
        KnowledgeDocument.path,
        KnowledgeDocument.content_hash,
        KnowledgeDocument.analyzer_version,
        KnowledgeDocument.analysis,
    )
    queries = (
        [select(*columns)]
        if paths is None
        else [
            select(*columns).where(KnowledgeDocument.path.in_(batch))
            for batch in _batches(sorted(paths))
        ]
    )
    cached: dict[str, CachedAnalysis] = {}
    stored: set[str] = set()
    async with sessions() as session:
        for query in queries:
            for path, digest, version, data in await session.execute(query):
                stored.add(path)
                if version == ANALYZER_VERSION:
                    cached[path] = CachedAnalysis(path, digest, DocumentAnalysis.from_json(data))
    return cached, stored


def _batches(items: Sequence[str]) -> list[Sequence[str]]:
    # Batches keep an IN list well under every database's bound-parameter limit.
    return [items[start : start + _BATCH] for start in range(0, len(items), _BATCH)]


async def store_analyses(
    sessions: async_sessionmaker[AsyncSession],
    entries: Sequence[tuple[str, str, DocumentAnalysis]],
    now: datetime,
) -> None:
    """Insert or update (path, content hash, analysis) rows in one transaction."""
    if not entries:
        return
    # It reads which rows exist, then writes: on SQLite it must hold the write lock from the
    # start, or another writer's commit in between fails it with "database is locked".
    async with write_sessions(sessions)() as session, session.begin():
        paths = [path for path, _, _ in entries]
        existing = set(
            await session.scalars(
                select(KnowledgeDocument.path).where(KnowledgeDocument.path.in_(paths))
            )
        )
        for path, digest, analysis in entries:
            place = place_of(path)
            values = {
                "guild_id": place.owner if place else None,
                "content_hash": digest,
                "analyzer_version": ANALYZER_VERSION,
                "analysis": analysis.to_json(),
                "indexed_at": now,
            }
            if path in existing:
                await session.execute(
                    update(KnowledgeDocument).where(KnowledgeDocument.path == path).values(values)
                )
            else:
                session.add(KnowledgeDocument(path=path, **values))


async def forget_analyses(sessions: async_sessionmaker[AsyncSession], paths: Iterable[str]) -> None:
    """Delete the cached analyses of files that no longer exist."""
    doomed = sorted(paths)
    if not doomed:
        return
    async with write_sessions(sessions)() as session, session.begin():
        for batch in _batches(doomed):
            await session.execute(
                delete(KnowledgeDocument).where(KnowledgeDocument.path.in_(batch))
            )
