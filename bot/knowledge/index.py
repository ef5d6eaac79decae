"""The in-memory knowledge-base index: kept in step with the files, cached per content hash."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.knowledge.analysis import (
    AnalysedSection,
    Analyser,
    DocumentAnalysis,
    analyse_document,
    analyse_in_worker,
)
from bot.knowledge.cache import CachedAnalysis, forget_analyses, load_cache, store_analyses
from bot.knowledge.files import FileSignature, read_texts, scan, signature_of
from bot.knowledge.hot_reload import HotReload
from bot.knowledge.ranking import FusedIndex, section_weight
from bot.knowledge.results import KnowledgeHit, RefreshReport
from bot.knowledge.vocabulary_file import VocabularyFile
from bot.runtime.clock import Clock
from bot.runtime.worker import in_worker
from bot.search.query import QueryPlan, plan_query
from bot.search.snippets import make_snippet
from bot.settings import Settings

log = logging.getLogger(__name__)

# Files tokenised per database transaction on a big (cold) batch: progress is saved and
# searchable as it goes, and an interrupted start resumes where it stopped.
BATCH_FILES = 20
# janome needs minutes for a file this large; such a file is almost surely not meant for the bot.
MAX_INDEXED_FILE_BYTES = 5_000_000


@dataclass(slots=True)
class _IndexedFile:
    content_hash: str
    signature: FileSignature
    analysis: DocumentAnalysis
    section_ids: list[int]


class KnowledgeIndex(HotReload):
    """BM25 over every section of `root/**/*.md`, refreshed incrementally from disk."""

    def __init__(
        self,
        root: Path,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        *,
        analyse: Analyser = analyse_document,
    ) -> None:
        self._root = root
        self._sessions = sessions
        self._clock = clock
        self._analyse = analyse
        self._bm25 = FusedIndex()
        self._vocabulary = VocabularyFile(root)
        self._files: dict[str, _IndexedFile] = {}
        # Files left out (too large, unreadable, failed to parse) are retried only once changed.
        self._skipped: dict[str, FileSignature] = {}
        self._sections: dict[int, tuple[str, AnalysedSection]] = {}
        self._next_id = 0
        self._lock = asyncio.Lock()
        self._ready = asyncio.Event()
        self._task = None

    @classmethod
    def from_settings(
        cls, settings: Settings, sessions: async_sessionmaker[AsyncSession], clock: Clock
    ) -> KnowledgeIndex:
        """The index of `settings.knowledge_base_dir`."""
        return cls(settings.knowledge_base_dir, sessions, clock)

    @property
    def root(self) -> Path:
        """The knowledge-base directory."""
        return self._root

    async def wait_ready(self) -> None:
        """Wait until the first load has finished."""
        await self._ready.wait()

    def source_of(self, path: str) -> str:
        """How answers cite a file: `knowledge_base/faq.md`."""
        return f"{self._root.name}/{path}"

    def paths(self) -> list[str]:
        """Relative paths of every indexed file, sorted."""
        return sorted(self._files)

    def analysis_of(self, path: str) -> DocumentAnalysis | None:
        """The indexed analysis of a file (title, tags, sections), if indexed."""
        indexed = self._files.get(path)
        return indexed.analysis if indexed else None

    def section_count(self) -> int:
        """How many sections are searchable."""
        return len(self._bm25)

    async def load(self) -> RefreshReport:
        """Start-up: reuse cached analyses for unchanged files, tokenise the rest, drop the gone."""
        async with self._lock:
            started = time.perf_counter()
            cache, stored = await load_cache(self._sessions)
            await self._vocabulary.refresh()
            listing = await asyncio.to_thread(scan, self._root)
            report = await self._sync(listing, set(listing), cache)
            await forget_analyses(self._sessions, stored - set(listing))
            report.seconds = time.perf_counter() - started
        self._ready.set()
        log.info("knowledge base loaded from %s: %s", self._root, report.summary())
        return report

    async def refresh(self) -> RefreshReport:
        """Pick up edits, additions and deletions on disk (cheap when nothing changed)."""
        async with self._lock:
            started = time.perf_counter()
            await self._vocabulary.refresh()
            listing = await asyncio.to_thread(scan, self._root)
            candidates = {
                path
                for path, signature in listing.items()
                if (path not in self._files or self._files[path].signature != signature)
                and self._skipped.get(path) != signature
            }
            report = await self._sync(listing, candidates, None)
            report.seconds = time.perf_counter() - started
        if report.changed:
            log.info("knowledge base refreshed: %s", report.summary())
        return report

    async def refresh_file(self, path: str) -> RefreshReport:
        """Re-read one file now (after the editor wrote or deleted it)."""
        async with self._lock:
            started = time.perf_counter()
            target = self._root / path
            signature = await asyncio.to_thread(signature_of, target)
            listing = {path: signature} if signature else {}
            report = await self._sync(listing, set(listing), None, only=path)
            report.seconds = time.perf_counter() - started
        return report

    def search(self, query: str, limit: int = 5) -> list[KnowledgeHit]:
        """The best sections for a question, best first, tokenised on the calling thread."""
        return self._rank(self._plan(query), limit)

    async def query(self, query: str, limit: int = 5) -> list[KnowledgeHit]:
        """`search` for the event loop: the question is tokenised on the text worker thread
        (its frequency look-ups are single reads); the ranking stays on the loop, where the
        index changes."""
        return self._rank(await in_worker(self._plan, query), limit)

    def _plan(self, query: str) -> QueryPlan:
        # Before the first refresh the built-in vocabulary is built here, off the loop too.
        return plan_query(query, self._vocabulary.current, self._bm25.document_frequency)

    def _rank(self, plan: QueryPlan, limit: int) -> list[KnowledgeHit]:
        if not plan.words and not plan.bigrams:
            return []
        terms = plan.terms
        hits: list[KnowledgeHit] = []
        for scored in self._bm25.search(plan, limit):
            path, section = self._sections[scored.doc_id]
            analysis = self._files[path].analysis
            hits.append(
                KnowledgeHit(
                    path=path,
                    source=self.source_of(path),
                    title=analysis.title,
                    heading=section.heading or analysis.title,
                    text=section.text,
                    snippet=make_snippet(section.text, terms),
                    score=scored.score,
                    relevance=scored.relevance,
                    tags=analysis.tags,
                )
            )
        return hits

    async def _sync(
        self,
        listing: dict[str, FileSignature],
        candidates: set[str],
        cache: dict[str, CachedAnalysis] | None,
        *,
        only: str | None = None,
    ) -> RefreshReport:
        report = RefreshReport()
        scope = {only} if only is not None else set(self._files)
        removed = sorted(p for p in scope if p in self._files and p not in listing)
        for path in removed:
            self._uninstall(path)
        report.removed = removed
        await forget_analyses(self._sessions, removed)
        for path in [p for p in self._skipped if p not in listing and (only in (None, p))]:
            del self._skipped[path]
        if not candidates:
            return report

        contents = await asyncio.to_thread(
            read_texts, self._root, sorted(candidates), MAX_INDEXED_FILE_BYTES
        )
        pending: list[tuple[str, str, str]] = []
        needs_cache = [
            p
            for p, (_, digest) in contents.items()
            if digest and (p not in self._files or self._files[p].content_hash != digest)
        ]
        if cache is None and needs_cache:
            cache, _ = await load_cache(self._sessions, needs_cache)
        for path, (text, digest) in contents.items():
            signature = listing[path]
            if text is None:
                self._skip(path, signature, report)
                continue
            self._skipped.pop(path, None)
            indexed = self._files.get(path)
            if indexed is not None and indexed.content_hash == digest:
                indexed.signature = signature  # touched, not changed
                continue
            hit = (cache or {}).get(path)
            if hit is not None and hit.content_hash == digest:
                self._install(path, digest, signature, hit.analysis)
                report.from_cache += 1
                (report.updated if indexed else report.added).append(path)
            else:
                pending.append((path, text, digest))

        for start in range(0, len(pending), BATCH_FILES):
            batch = pending[start : start + BATCH_FILES]
            analyses = await analyse_in_worker(self._analyse, [(p, t) for p, t, _ in batch])
            done = [(p, d, a) for (p, _, d), a in zip(batch, analyses, strict=True) if a]
            await store_analyses(self._sessions, done, self._clock.now())
            for (path, _, digest), analysis in zip(batch, analyses, strict=True):
                if analysis is None:
                    self._skip(path, listing[path], report)
                    continue
                (report.updated if path in self._files else report.added).append(path)
                self._install(path, digest, listing[path], analysis)
            report.tokenised += len(batch)
        return report

    def _skip(self, path: str, signature: FileSignature, report: RefreshReport) -> None:
        self._skipped[path] = signature
        report.skipped.append(path)
        if path in self._files:
            self._uninstall(path)
            report.removed.append(path)

    def _install(
        self, path: str, digest: str, signature: FileSignature, analysis: DocumentAnalysis
    ) -> None:
        self._uninstall(path)
        ids: list[int] = []
        for section in analysis.sections:
            doc_id = self._next_id
            self._next_id += 1
            weight = section_weight(analysis, section)
            self._bm25.add(doc_id, section.terms, section.bigrams, weight)
            self._sections[doc_id] = (path, section)
            ids.append(doc_id)
        self._files[path] = _IndexedFile(digest, signature, analysis, ids)

    def _uninstall(self, path: str) -> None:
        indexed = self._files.pop(path, None)
        if indexed is None:
            return
        for doc_id in indexed.section_ids:
            self._bm25.remove(doc_id)
            del self._sections[doc_id]
