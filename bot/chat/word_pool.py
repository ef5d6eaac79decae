"""The word pool: topic words people use, scored with decay and persisted in batches.

Each message adds 1 to the score of every distinct topic word in it. Scores halve every
`half_life` (three days by default), applied lazily from `last_seen`, so yesterday's craze fades
without any background job. A message is queued (`feed`), tokenised on the text worker thread
and buffered; the buffer is written every few seconds (or sooner when it grows) and on close, so
the message hot path never waits on janome or the database. The table keeps at most `max_words`
rows per server: the weakest are pruned.

Every server has its own pool: a word counts for the server whose member typed it, and a server's
topics are its own words (and those from before servers had their own, `LEGACY_GUILD`), never
another server's. A DM has no pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, func, or_, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.sql.elements import ColumnElement

from bot.chat.table import LEGACY_GUILD, WordPoolEntry
from bot.chat.words import extract_words
from bot.runtime.background import cancel_and_wait
from bot.runtime.clock import Clock, FreshFor
from bot.runtime.worker import in_worker
from bot.settings import Settings
from bot.storage.engine import write_sessions
from bot.storage.outage import DatabaseHealth

log = logging.getLogger(__name__)

DEFAULT_HALF_LIFE = timedelta(days=3)
MAX_WORDS = 1000  # per server
FLUSH_INTERVAL_SECONDS = 5.0
FLUSH_THRESHOLD = 200  # buffered words that trigger an early flush
MAX_OBSERVED_CHARS = 1000  # janome reads ~32k chars/s: bound the time one message can cost
# Messages waiting for the text worker; beyond it a flood's words are dropped, not queued in RAM.
MAX_QUEUED_MESSAGES = 1000
_IN_CLAUSE_BATCH = 500  # stay well below SQLite's bound-parameter limit


@dataclass(frozen=True)
class Topic:
    """A word from the pool with its score decayed to now."""

    word: str
    score: float
    last_seen: datetime


@dataclass
class _Pending:
    count: float
    last_seen: datetime


def decayed(score: float, last_seen: datetime, now: datetime, half_life: timedelta) -> float:
    """score as of now: halved for every half_life since last_seen."""
    elapsed = max(0.0, (now - last_seen).total_seconds())
    return score * math.pow(0.5, elapsed / half_life.total_seconds())


def _chunks(items: Sequence[str], size: int = _IN_CLAUSE_BATCH) -> Iterator[Sequence[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _visible(guild_id: int | None) -> ColumnElement[bool]:
    """The rows a server's topics come from: its own and the legacy ones (a DM: none)."""
    if guild_id is None:
        return WordPoolEntry.guild_id.is_(None)  # no row has no server: a DM has no topics
    return or_(WordPoolEntry.guild_id == guild_id, WordPoolEntry.guild_id == LEGACY_GUILD)


async def _stored_scores(
    session: AsyncSession,
    now: datetime,
    half_life: timedelta,
    guild_id: int | None,
    *,
    own_only: bool = False,
) -> dict[str, Topic]:
    where = WordPoolEntry.guild_id == guild_id if own_only else _visible(guild_id)
    rows = await session.execute(
        select(WordPoolEntry.word, WordPoolEntry.score, WordPoolEntry.last_seen).where(where)
    )
    topics: dict[str, Topic] = {}
    for word, score, last_seen in rows:
        topic = Topic(word, decayed(score, last_seen, now, half_life), last_seen)
        known = topics.get(word)
        if known is not None:  # a legacy row and the server's own: one topic
            topic = Topic(word, known.score + topic.score, max(known.last_seen, last_seen))
        topics[word] = topic
    return topics


def _strongest(topics: dict[str, Topic], limit: int) -> list[Topic]:
    ranked = sorted(topics.values(), key=lambda t: (-t.score, -t.last_seen.timestamp(), t.word))
    return ranked[:limit]


async def load_topics(
    sessions: async_sessionmaker[AsyncSession],
    now: datetime,
    limit: int,
    half_life: timedelta = DEFAULT_HALF_LIFE,
    *,
    guild_id: int | None,
) -> list[Topic]:
    """A server's strongest stored topics as of now (what a WordPool has not flushed yet is not
    seen)."""
    async with sessions() as session:
        return _strongest(await _stored_scores(session, now, half_life, guild_id), limit)


class WordPool:
    """Collects topic words from allowed channels and answers the strongest recent ones."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        settings: Settings,
        *,
        half_life: timedelta = DEFAULT_HALF_LIFE,
        max_words: int = MAX_WORDS,
        flush_interval: float = FLUSH_INTERVAL_SECONDS,
        flush_threshold: int = FLUSH_THRESHOLD,
        health: DatabaseHealth | None = None,
    ) -> None:
        self._sessions = sessions
        self._writes = write_sessions(sessions)
        self._health = health or DatabaseHealth()
        self._clock = clock
        self._channels = frozenset(settings.word_pool_channel_ids)
        self.half_life = half_life
        self._max_words = max_words
        self._flush_interval = flush_interval
        self._flush_threshold = flush_threshold
        self._pending: dict[tuple[int, str], _Pending] = {}
        self._lock = asyncio.Lock()
        self._wake = asyncio.Event()
        self._closing = False
        self._task: asyncio.Task[None] | None = None
        self._inbox: asyncio.Queue[tuple[int, str]] = asyncio.Queue(MAX_QUEUED_MESSAGES)
        self._digester: asyncio.Task[None] | None = None
        self._channels_of: Callable[[int], frozenset[int]] | None = None
        # Each server's stored scores, read at every chat mention: kept while fresh, forgotten
        # when this process writes the server's words.
        self._stored: FreshFor[int, dict[str, Topic]] = FreshFor(
            settings.server_settings_refresh_seconds, clock=lambda: clock.now().timestamp()
        )

    def channels_per_server(self, channels_of: Callable[[int], frozenset[int]]) -> None:
        """Read each server's word-pool channels (its admins' setting) instead of
        WORD_POOL_CHANNEL_IDS."""
        self._channels_of = channels_of

    def accepts(self, channel_id: int, guild_id: int | None = None) -> bool:
        """Whether messages of this channel feed the pool (every channel when none configured):
        the server's own list when known, else WORD_POOL_CHANNEL_IDS."""
        channels = (
            self._channels_of(guild_id)
            if guild_id is not None and self._channels_of is not None
            else self._channels
        )
        return not channels or channel_id in channels

    @property
    def pending(self) -> int:
        """Words buffered and not yet written."""
        return len(self._pending)

    def observe(self, text: str, channel_id: int, guild_id: int) -> list[str]:
        """Buffer the topic words of a member's message in a server's channel; return them
        (empty if not accepted).

        Call it for messages people wrote in guild channels only: words from DMs or other bots
        would surface in public tips.
        """
        if not self.accepts(channel_id, guild_id):
            return []
        words = extract_words(text[:MAX_OBSERVED_CHARS])
        self._add(guild_id, words)
        return words

    def feed(self, text: str, channel_id: int, guild_id: int) -> None:
        """`observe` for the event loop: queue the message, tokenised later on the text worker."""
        if not self.accepts(channel_id, guild_id):
            return
        try:
            self._inbox.put_nowait((guild_id, text[:MAX_OBSERVED_CHARS]))
        except asyncio.QueueFull:
            log.debug("word pool inbox full; a message's words are dropped")

    async def drain(self) -> None:
        """Tokenise every queued message now (at shutdown, and for tests)."""
        while not self._inbox.empty():
            guild_id, text = self._inbox.get_nowait()
            self._add(guild_id, await in_worker(extract_words, text))

    async def _digest(self) -> None:
        while True:
            guild_id, text = await self._inbox.get()
            try:
                self._add(guild_id, await in_worker(extract_words, text))
            except Exception:  # one odd message must not stop the pool
                log.exception("word pool could not tokenise a message")

    def _add(self, guild_id: int, words: list[str]) -> None:
        now = self._clock.now()
        for word in words:
            key = (guild_id, word)
            entry = self._pending.get(key)
            if entry is None:
                self._pending[key] = _Pending(1.0, now)
            else:
                entry.count += 1.0
                entry.last_seen = now
        if len(self._pending) >= self._flush_threshold:
            self._wake.set()

    async def flush(self) -> int:
        """Write the buffered words; return how many. On a database error they stay buffered."""
        async with self._lock:
            if not self._pending:
                return 0
            batch, self._pending = self._pending, {}
            try:
                await self._write(batch)
            except BaseException as exc:
                self._restore(batch)
                if isinstance(exc, SQLAlchemyError):
                    log.warning("word pool not saved, will retry: %s", exc)
                    return 0
                raise
            return len(batch)

    async def recent_topics(self, limit: int = 10, *, guild_id: int | None) -> list[Topic]:
        """A server's strongest topics right now, buffered words included (none in a DM)."""
        if guild_id is None:
            return []

        async def read() -> dict[str, Topic]:
            async with self._sessions() as session:
                return await _stored_scores(session, self._clock.now(), self.half_life, guild_id)

        topics = dict(await self._stored.get(guild_id, read))
        for (server, word), entry in self._pending.items():
            if server != guild_id:
                continue
            stored = topics.get(word)
            score = entry.count + (stored.score if stored else 0.0)
            topics[word] = Topic(word, score, entry.last_seen)
        return _strongest(topics, limit)

    def start(self) -> None:
        """Start the background task that flushes every few seconds."""
        if self._task is None:
            self._closing = False
            self._task = asyncio.create_task(self._flush_periodically(), name="word-pool-flush")
        if self._digester is None:
            self._digester = asyncio.create_task(self._digest(), name="word-pool-digest")

    async def close(self) -> None:
        """Stop the background task and write what is still buffered."""
        self._closing = True
        self._wake.set()
        await cancel_and_wait(self._digester)
        self._digester = None
        await self.drain()
        if self._task is not None:
            await self._task
            self._task = None
        await self.flush()

    async def _flush_periodically(self) -> None:
        while not self._closing:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=self._flush_interval)
            self._wake.clear()
            try:
                await self.flush()
            except Exception as exc:  # the flusher must outlive one bad batch
                # Unflushed words stay buffered; an outage is said once, not per flush.
                if not self._health.noticed(exc):
                    log.exception("word pool flush failed")

    def _restore(self, batch: dict[tuple[int, str], _Pending]) -> None:
        for key, entry in batch.items():
            current = self._pending.get(key)
            if current is None:
                self._pending[key] = entry
            else:
                current.count += entry.count
                current.last_seen = max(current.last_seen, entry.last_seen)

    async def _write(self, batch: dict[tuple[int, str], _Pending]) -> None:
        # Read, then written: on SQLite the write lock is taken up front (see write_sessions).
        servers: dict[int, list[str]] = {}
        for guild_id, word in sorted(batch):
            servers.setdefault(guild_id, []).append(word)
        try:
            await self._write_servers(servers, batch)
        finally:
            # Read while the words were being written, a server's scores lack them.
            for guild_id in servers:
                self._stored.forget(guild_id)

    async def _write_servers(
        self, servers: dict[int, list[str]], batch: dict[tuple[int, str], _Pending]
    ) -> None:
        async with self._writes() as session, session.begin():
            for guild_id, words in servers.items():
                await self._write_server(session, guild_id, words, batch)
            await session.flush()
            for guild_id in servers:
                total = (
                    await session.scalar(
                        select(func.count())
                        .select_from(WordPoolEntry)
                        .where(WordPoolEntry.guild_id == guild_id)
                    )
                    or 0
                )
                # Some slack above the cap, so that a busy pool does not prune at every flush.
                if total > self._max_words + max(1, self._max_words // 10):
                    await self._prune(session, guild_id)

    async def _write_server(
        self,
        session: AsyncSession,
        guild_id: int,
        words: list[str],
        batch: dict[tuple[int, str], _Pending],
    ) -> None:
        for chunk in _chunks(words):
            rows = await session.scalars(
                select(WordPoolEntry).where(
                    WordPoolEntry.guild_id == guild_id, WordPoolEntry.word.in_(chunk)
                )
            )
            existing = {row.word: row for row in rows}
            for word in chunk:
                entry = batch[(guild_id, word)]
                row = existing.get(word)
                if row is None:
                    session.add(
                        WordPoolEntry(
                            guild_id=guild_id,
                            word=word,
                            score=entry.count,
                            last_seen=entry.last_seen,
                        )
                    )
                else:
                    row.score = (
                        decayed(row.score, row.last_seen, entry.last_seen, self.half_life)
                        + entry.count
                    )
                    row.last_seen = max(row.last_seen, entry.last_seen)

    async def _prune(self, session: AsyncSession, guild_id: int) -> None:
        """Delete a server's weakest words until max_words remain."""
        topics = await _stored_scores(
            session, self._clock.now(), self.half_life, guild_id, own_only=True
        )
        ranked = _strongest(topics, len(topics))
        weakest = [t.word for t in ranked[self._max_words :]]
        for chunk in _chunks(weakest):
            await session.execute(
                delete(WordPoolEntry).where(
                    WordPoolEntry.guild_id == guild_id, WordPoolEntry.word.in_(chunk)
                )
            )
        log.info("word pool pruned %d weak words of server %d", len(weakest), guild_id)
