"""The word pool buffers, persists, decays, prunes and survives restarts."""

from __future__ import annotations

import asyncio
import threading
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from bot.chat import word_pool as word_pool_module
from bot.chat.table import LEGACY_GUILD, WordPoolEntry
from bot.chat.word_pool import WordPool, decayed, load_topics
from bot.runtime.clock import ManualClock
from bot.settings import Settings
from bot.storage.engine import Database, create_database
from tests.chat.conftest import NOW

# The server whose members talk in these tests.
GUILD = 1


async def stored_words(db: Database) -> dict[str, float]:
    async with db.sessions() as session:
        rows = await session.execute(select(WordPoolEntry.word, WordPoolEntry.score))
        return {word: score for word, score in rows}


async def test_observing_buffers_words_without_touching_the_database(
    db: Database, clock: ManualClock, settings: Settings
) -> None:
    pool = WordPool(db.sessions, clock, settings)
    assert pool.observe("ラーメンと餃子を食べた", channel_id=1, guild_id=GUILD) == [
        "ラーメン",
        "餃子",
    ]
    assert pool.pending == 2
    assert await stored_words(db) == {}
    assert await pool.flush() == 2
    assert pool.pending == 0
    assert await stored_words(db) == {"ラーメン": 1.0, "餃子": 1.0}


async def test_fed_messages_are_tokenised_on_the_text_worker_not_the_event_loop(
    db: Database, clock: ManualClock, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[str] = []
    real = word_pool_module.extract_words

    def recording(text: str) -> list[str]:
        threads.append(threading.current_thread().name)
        return real(text)

    monkeypatch.setattr(word_pool_module, "extract_words", recording)
    pool = WordPool(db.sessions, clock, settings)
    pool.feed("ラーメンと餃子を食べた", channel_id=1, guild_id=GUILD)
    assert pool.pending == 0  # nothing tokenised yet: feed only queues
    await pool.drain()

    assert pool.pending == 2
    assert threads and all(name.startswith("text-worker") for name in threads)


async def test_buffered_words_already_count_in_recent_topics(
    db: Database, clock: ManualClock, settings: Settings
) -> None:
    pool = WordPool(db.sessions, clock, settings)
    pool.observe("ラーメン", 1, GUILD)
    await pool.flush()
    pool.observe("ラーメンとカレー", 1, GUILD)
    topics = await pool.recent_topics(5, guild_id=GUILD)
    assert [(t.word, t.score) for t in topics] == [("ラーメン", 2.0), ("カレー", 1.0)]


async def test_only_the_configured_channels_feed_the_pool(db: Database, clock: ManualClock) -> None:
    pool = WordPool(db.sessions, clock, Settings(word_pool_channel_ids=[10, 20]))
    assert pool.observe("ラーメン", channel_id=30, guild_id=GUILD) == []
    assert pool.observe("カレー", channel_id=20, guild_id=GUILD) == ["カレー"]
    assert pool.accepts(10) and not pool.accepts(30)
    assert WordPool(db.sessions, clock, Settings()).accepts(30)


async def test_scores_decay_so_fresh_words_outrank_old_crazes(
    db: Database, clock: ManualClock, settings: Settings
) -> None:
    pool = WordPool(db.sessions, clock, settings, half_life=timedelta(days=3))
    for _ in range(5):
        pool.observe("タピオカ", 1, GUILD)
    await pool.flush()
    clock.advance(timedelta(days=9))  # three half-lives: 5 → 0.625
    pool.observe("サウナ", 1, GUILD)
    await pool.flush()
    topics = await pool.recent_topics(10, guild_id=GUILD)
    assert [t.word for t in topics] == ["サウナ", "タピオカ"]
    assert topics[1].score == pytest.approx(0.625)


async def test_a_word_seen_again_keeps_its_decayed_score_and_adds_one(
    db: Database, clock: ManualClock, settings: Settings
) -> None:
    pool = WordPool(db.sessions, clock, settings, half_life=timedelta(days=1))
    pool.observe("将棋", 1, GUILD)
    pool.observe("将棋", 1, GUILD)
    await pool.flush()
    clock.advance(timedelta(days=1))
    pool.observe("将棋", 1, GUILD)
    await pool.flush()
    assert await stored_words(db) == {"将棋": pytest.approx(2.0)}


def test_decay_halves_the_score_every_half_life() -> None:
    assert decayed(8.0, NOW, NOW + timedelta(days=6), timedelta(days=3)) == pytest.approx(2.0)
    assert decayed(8.0, NOW, NOW - timedelta(days=1), timedelta(days=3)) == 8.0


async def test_the_pool_keeps_only_the_strongest_words(
    db: Database, clock: ManualClock, settings: Settings
) -> None:
    pool = WordPool(db.sessions, clock, settings, max_words=5)
    words = ["バナナ", "イチゴ", "レモン", "メロン", "キウイ", "マンゴー", "スイカ", "パイン"]
    for strength, word in enumerate(words, start=1):
        for _ in range(strength):
            pool.observe(word, 1, GUILD)
    await pool.flush()
    assert set(await stored_words(db)) == {"メロン", "キウイ", "マンゴー", "スイカ", "パイン"}


async def test_a_database_error_keeps_the_words_buffered(
    blank_database_url: str,
    clock: ManualClock,
    settings: Settings,
    caplog: pytest.LogCaptureFixture,
) -> None:
    bare = create_database(blank_database_url)  # no tables yet
    try:
        pool = WordPool(bare.sessions, clock, settings)
        pool.observe("ラーメン", 1, GUILD)
        assert await pool.flush() == 0
        assert pool.pending == 1
        assert "word pool not saved" in caplog.text
        pool.observe("ラーメン", 1, GUILD)
        async with bare.engine.begin() as connection:
            await connection.run_sync(WordPoolEntry.metadata.create_all)
        assert await pool.flush() == 1
        assert await stored_words(bare) == {"ラーメン": 2.0}
    finally:
        await bare.dispose()


async def test_close_writes_what_is_still_buffered(
    db: Database, clock: ManualClock, settings: Settings
) -> None:
    pool = WordPool(db.sessions, clock, settings, flush_interval=3600)
    pool.start()
    pool.observe("焼き芋", 1, GUILD)
    await pool.close()
    assert await stored_words(db) == {"焼き芋": 1.0}


async def test_a_full_buffer_is_flushed_in_the_background_without_waiting_for_the_interval(
    db: Database, clock: ManualClock, settings: Settings
) -> None:
    pool = WordPool(db.sessions, clock, settings, flush_interval=3600, flush_threshold=3)
    flushed = asyncio.Event()
    real_flush = pool.flush

    async def flush_and_signal() -> int:
        written = await real_flush()
        if written:
            flushed.set()
        return written

    pool.flush = flush_and_signal  # type: ignore[method-assign]
    pool.start()
    try:
        pool.observe("ラーメン", 1, GUILD)
        pool.observe("カレー", 1, GUILD)
        assert pool.pending == 2
        pool.observe("うどん", 1, GUILD)
        # The interval is an hour: only the threshold can have woken the flusher.
        async with asyncio.timeout(5):
            await flushed.wait()
        assert pool.pending == 0
        assert set(await stored_words(db)) == {"ラーメン", "カレー", "うどん"}
    finally:
        await pool.close()


async def test_the_pool_survives_a_restart(
    database_url: str, clock: ManualClock, settings: Settings
) -> None:
    url = database_url
    first = create_database(url)
    pool = WordPool(first.sessions, clock, settings)
    pool.start()
    pool.observe("キャンプ、キャンプ場の焚き火", 1, GUILD)
    pool.observe("キャンプ", 1, GUILD)
    await pool.close()
    await first.dispose()

    second = create_database(url)
    try:
        restarted = WordPool(second.sessions, clock, settings)
        topics = await restarted.recent_topics(3, guild_id=GUILD)
        assert topics[0].word == "キャンプ"
        assert topics[0].score == 2.0
        assert [
            t.word for t in await load_topics(second.sessions, clock.now(), 3, guild_id=GUILD)
        ] == [t.word for t in topics]
    finally:
        await second.dispose()


async def test_load_topics_reads_the_saved_pool_strongest_first(
    db: Database, clock: ManualClock, settings: Settings
) -> None:
    pool = WordPool(db.sessions, clock, settings)
    for text in ["映画", "映画と音楽", "映画と音楽と読書"]:
        pool.observe(text, 1, GUILD)
    await pool.flush()
    topics = await load_topics(db.sessions, clock.now(), 2, guild_id=GUILD)
    assert [(t.word, t.score) for t in topics] == [("映画", 3.0), ("音楽", 2.0)]
    async with db.sessions() as session:
        assert await session.scalar(select(func.count()).select_from(WordPoolEntry)) == 3


async def test_each_server_has_its_own_pool_and_the_old_words_count_in_every_server(
    db: Database, clock: ManualClock, settings: Settings
) -> None:
    async with db.sessions() as session, session.begin():
        session.add(
            WordPoolEntry(guild_id=LEGACY_GUILD, word="花火", score=1.0, last_seen=clock.now())
        )
    pool = WordPool(db.sessions, clock, settings)
    pool.observe("ラーメンとラーメン", 1, GUILD)
    pool.observe("競馬", 2, GUILD + 1)
    await pool.flush()
    pool.observe("花火", 1, GUILD)

    here = await pool.recent_topics(10, guild_id=GUILD)
    there = await pool.recent_topics(10, guild_id=GUILD + 1)

    assert [(t.word, t.score) for t in here] == [("花火", 2.0), ("ラーメン", 1.0)]
    assert [t.word for t in there] == ["競馬", "花火"]
    assert await pool.recent_topics(10, guild_id=None) == []


async def test_the_word_cap_holds_per_server(
    db: Database, clock: ManualClock, settings: Settings
) -> None:
    pool = WordPool(db.sessions, clock, settings, max_words=2)
    for word in ("映画", "音楽", "旅行", "料理"):
        pool.observe(word, 1, GUILD)
    pool.observe("競馬", 1, GUILD + 1)
    await pool.flush()

    async with db.sessions() as session:
        counts = dict(
            (
                await session.execute(
                    select(WordPoolEntry.guild_id, func.count()).group_by(WordPoolEntry.guild_id)
                )
            ).all()
        )
    assert counts == {GUILD: 2, GUILD + 1: 1}
