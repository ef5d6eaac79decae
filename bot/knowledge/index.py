"""The in-memory knowledge-base index: kept in step with the files, cached per content hash.

One folder is indexed (the shared base, with each server's own files under `servers/<id>/`), and
each place gets its own BM25 index, so a server's search reads the shared sections and its own,
never another server's, and costs the same with one server or a thousand.
"""

from __future__ import annotations

import asyncio
import heapq
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from operator import attrgetter
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
from bot.knowledge.embeddings import Embedder, LiteLLMEmbedder
from bot.knowledge.files import FileSignature, read_texts, scan, signature_of
from bot.knowledge.hot_reload import HotReload
from bot.knowledge.places import Place, place_of
from bot.knowledge.ranking import FusedIndex, KnowledgeHit, RefreshReport, section_weight
from bot.knowledge.semantic import CANDIDATES, Fused, SemanticSearch, embedding_text, fuse
from bot.knowledge.vocabulary_file import VocabularyFile
from bot.runtime.clock import Clock
from bot.runtime.worker import in_worker
from bot.search.bm25 import QueryPlan, plan_query
from bot.search.snippets import make_snippet
from bot.servers import ServerScope
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
    place: Place


def scan_places(root: Path) -> dict[str, FileSignature]:
    """Every file of the base that belongs to a place (shared or a server's folder)."""
    return {path: sig for path, sig in scan(root).items() if place_of(path) is not None}


class KnowledgeIndex(HotReload):
    """BM25 over every section of `root/**/*.md`, refreshed incrementally from disk.

    Searches take a `ServerScope`: a server reads the shared files and its own (its file
    overriding a shared one of the same path), a DM the shared files only.
    """

    def __init__(
        self,
        root: Path,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        *,
        analyse: Analyser = analyse_document,
        embedder: Embedder | None = None,
        min_similarity: float = 0.3,
    ) -> None:
        self._root = root
        self._sessions = sessions
        self._clock = clock
        self._analyse = analyse
        # The shared files' sections, and each server's own (by guild id).
        self._bm25 = FusedIndex()
        self._servers: dict[int, FusedIndex] = {}
        # Per server: its files' paths inside its folder (what it may override).
        self._server_files: dict[int, set[str]] = {}
        self._vocabulary = VocabularyFile(root)
        self._files: dict[str, _IndexedFile] = {}
        # Files left out (too large, unreadable, failed to parse) are retried only once changed.
        self._skipped: dict[str, FileSignature] = {}
        self._sections: dict[int, tuple[str, AnalysedSection]] = {}
        self._next_id = 0
        # Counts changes to the indexed files: what is derived from them (outlines) is kept
        # until it moves.
        self.generation = 0
        self._lock = asyncio.Lock()
        self._ready = asyncio.Event()
        self._task = None
        # The latest load or refresh that changed the index (its duration goes to /metrics).
        self.last_load: RefreshReport | None = None
        # Off (None) unless an embedding model is configured: then BM25 and embeddings fuse.
        self._semantic = (
            SemanticSearch(embedder, sessions, clock, min_similarity) if embedder else None
        )

    @classmethod
    def from_settings(
        cls, settings: Settings, sessions: async_sessionmaker[AsyncSession], clock: Clock
    ) -> KnowledgeIndex:
        """The index of `settings.knowledge_base_dir`, semantic when EMBEDDING_MODEL is set."""
        return cls(
            settings.knowledge_base_dir,
            sessions,
            clock,
            embedder=LiteLLMEmbedder.from_settings(settings),
            min_similarity=settings.embedding_min_similarity,
        )

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
        """Relative paths of every indexed file (every server's too), sorted."""
        return sorted(self._files)

    def visible_paths(self, scope: ServerScope) -> list[str]:
        """Relative paths of the files a scope reads (overridden shared files left out), sorted."""
        overridden = self._overridden_paths(scope)
        return sorted(
            path
            for path, indexed in self._files.items()
            if scope.sees(indexed.place.owner) and path not in overridden
        )

    def analysis_of(self, path: str) -> DocumentAnalysis | None:
        """The indexed analysis of a file (title, tags, sections), if indexed."""
        indexed = self._files.get(path)
        return indexed.analysis if indexed else None

    def page(self, path: str, scope: ServerScope) -> DocumentAnalysis | None:
        """A file's analysis when the scope reads it (not another server's, not overridden)."""
        indexed = self._files.get(path)
        if indexed is None or not scope.sees(indexed.place.owner):
            return None
        return None if path in self._overridden_paths(scope) else indexed.analysis

    def section_count(self) -> int:
        """How many sections are searchable (in every place)."""
        return len(self._bm25) + sum(len(index) for index in self._servers.values())

    async def load(self) -> RefreshReport:
        """Start-up: reuse cached analyses for unchanged files, tokenise the rest, drop the gone."""
        async with self._lock:
            started = time.perf_counter()
            cache, stored = await load_cache(self._sessions)
            await self._vocabulary.refresh()
            listing = await asyncio.to_thread(scan_places, self._root)
            report = await self._sync(listing, set(listing), cache)
            await forget_analyses(self._sessions, stored - set(listing))
            report.seconds = time.perf_counter() - started
        self.last_load = report
        self._ready.set()
        log.info("knowledge base loaded from %s: %s", self._root, report.summary())
        if self._semantic is not None:
            await self._semantic.embed_pending()
            await self._semantic.forget_stale()
        return report

    async def refresh(self) -> RefreshReport:
        """Pick up edits, additions and deletions on disk (cheap when nothing changed)."""
        async with self._lock:
            started = time.perf_counter()
            await self._vocabulary.refresh()
            listing = await asyncio.to_thread(scan_places, self._root)
            candidates = {
                path
                for path, signature in listing.items()
                if (path not in self._files or self._files[path].signature != signature)
                and self._skipped.get(path) != signature
            }
            report = await self._sync(listing, candidates, None)
            report.seconds = time.perf_counter() - started
        if report.changed:
            self.last_load = report
            log.info("knowledge base refreshed: %s", report.summary())
        if self._semantic is not None:
            await self._semantic.embed_pending()
        return report

    async def refresh_file(self, path: str) -> RefreshReport:
        """Re-read one file now (after the editor wrote or deleted it)."""
        async with self._lock:
            started = time.perf_counter()
            target = self._root / path
            signature = await asyncio.to_thread(signature_of, target)
            listing = {path: signature} if signature and place_of(path) else {}
            report = await self._sync(listing, set(listing), None, only=path)
            report.seconds = time.perf_counter() - started
        if self._semantic is not None:
            await self._semantic.embed_pending()
        return report

    def search(
        self, query: str, limit: int = 5, *, scope: ServerScope = ServerScope.DM
    ) -> list[KnowledgeHit]:
        """The best sections for a question by BM25, best first, tokenised on the calling thread."""
        plan = self._plan(query, scope)
        return self._hits(plan, self._lexical(plan, limit, scope))

    async def query(
        self, query: str, limit: int = 5, *, scope: ServerScope = ServerScope.DM
    ) -> list[KnowledgeHit]:
        """The best sections for the event loop: the question is tokenised on the text worker
        thread (its frequency look-ups are single reads); the ranking stays on the loop, where
        the index changes. With an embedding model, BM25 and the question's nearest sections
        are fused (one embedding request, made while the question is tokenised)."""
        if self._semantic is None or not self._semantic.embedded:
            plan = await in_worker(self._plan, query, scope)
            return self._hits(plan, self._lexical(plan, limit, scope))
        plan, near = await asyncio.gather(
            in_worker(self._plan, query, scope), self._semantic.nearest(query, CANDIDATES)
        )
        # A section may have left the index while the question was embedded; and only the
        # sections this scope reads count.
        excluded = self._overridden_sections(scope)
        near = [
            (doc, similarity)
            for doc, similarity in near
            if doc in self._sections and doc not in excluded and self._readable(doc, scope)
        ]
        return self._hits(plan, fuse(self._lexical(plan, CANDIDATES, scope), near, limit))

    def _plan(self, query: str, scope: ServerScope = ServerScope.DM) -> QueryPlan:
        # Before the first refresh the built-in vocabulary is built here, off the loop too.
        return plan_query(query, self._vocabulary.current, self._frequency(scope))

    def _frequency(self, scope: ServerScope) -> Callable[[str], int]:
        """How many sections the scope reads use a word (shared plus the server's own)."""
        shared = self._bm25.document_frequency
        own = self._servers.get(scope.guild_id) if scope.guild_id is not None else None
        if own is None:
            return shared
        server = own.document_frequency
        return lambda term: shared(term) + server(term)

    def _lexical(
        self, plan: QueryPlan, limit: int, scope: ServerScope = ServerScope.DM
    ) -> list[Fused]:
        if not plan.words and not plan.bigrams:
            return []
        excluded = self._overridden_sections(scope)
        shared = [
            Fused(s.doc_id, s.score, s.relevance) for s in self._bm25.search(plan, limit, excluded)
        ]
        own = self._servers.get(scope.guild_id) if scope.guild_id is not None else None
        if own is None or not len(own):
            return shared
        mine = [Fused(s.doc_id, s.score, s.relevance) for s in own.search(plan, limit)]
        # Scores of two indexes are not on one scale; the share of the best possible is.
        return heapq.nlargest(limit, [*mine, *shared], key=attrgetter("relevance"))

    def _overridden_paths(self, scope: ServerScope) -> set[str]:
        """The shared files this scope's server replaces with its own of the same path."""
        if scope.guild_id is None:
            return set()
        own = self._server_files.get(scope.guild_id, set())
        return {path for path in own if path in self._files}

    def _overridden_sections(self, scope: ServerScope) -> set[int]:
        overridden = self._overridden_paths(scope)
        return {doc for path in overridden for doc in self._files[path].section_ids}

    def _readable(self, doc_id: int, scope: ServerScope) -> bool:
        path, _ = self._sections[doc_id]
        return scope.sees(self._files[path].place.owner)

    def _hits(self, plan: QueryPlan, found: list[Fused]) -> list[KnowledgeHit]:
        terms = plan.terms
        hits: list[KnowledgeHit] = []
        for scored in found:
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
        place = place_of(path)
        assert place is not None  # only files of a place are listed
        bm25 = self._bm25
        if place.owner is not None:
            bm25 = self._servers.setdefault(place.owner, FusedIndex())
            self._server_files.setdefault(place.owner, set()).add(place.path)
        ids: list[int] = []
        for section in analysis.sections:
            doc_id = self._next_id
            self._next_id += 1
            weight = section_weight(analysis, section)
            bm25.add(doc_id, section.terms, section.bigrams, weight)
            self._sections[doc_id] = (path, section)
            if self._semantic is not None:
                heading = section.heading or analysis.title
                self._semantic.add(doc_id, embedding_text(analysis.title, heading, section.text))
            ids.append(doc_id)
        self._files[path] = _IndexedFile(digest, signature, analysis, ids, place)
        self.generation += 1

    def _uninstall(self, path: str) -> None:
        indexed = self._files.pop(path, None)
        if indexed is None:
            return
        self.generation += 1
        owner = indexed.place.owner
        bm25 = self._bm25 if owner is None else self._servers[owner]
        if owner is not None:
            files = self._server_files[owner]
            files.discard(indexed.place.path)
            if not files:
                # A server with no files left keeps no index (a thousand servers stay cheap).
                del self._server_files[owner]
                del self._servers[owner]
        for doc_id in indexed.section_ids:
            bm25.remove(doc_id)
            del self._sections[doc_id]
            if self._semantic is not None:
                self._semantic.remove(doc_id)
