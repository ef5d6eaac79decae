"""Notebook benchmark: writing a note and searching a full server notebook (1,000 notes).

Run `python bench/notes_search.py` (SQLite file in a temporary folder; `--short`: 50 notes). The
first search after a change reads the server's notes with their stored terms (on the event loop);
later ones only check that nothing changed. Ranking runs on the janome worker thread, off the loop.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import select

from bot.members.permissions import Person
from bot.notes import MAX_NOTES_PER_SERVER, Notebook
from bot.notes.table import Note
from bot.runtime.clock import ManualClock
from bot.storage.engine import create_database
from bot.storage.tables import metadata

WORDS = [
    "旅行",
    "集合",
    "東京駅",
    "会議",
    "資料",
    "買い出し",
    "牛乳",
    "卵",
    "練習",
    "試合",
    "大会",
    "準備",
    "結果",
    "報告",
    "写真",
    "動画",
    "料理",
    "予約",
    "レストラン",
    "合宿",
    "予算",
    "担当",
    "締め切り",
    "発表",
    "スライド",
    "部室",
    "鍵",
    "パスワード",
    "連絡先",
    "住所",
]
QUERIES = ["旅行の集合場所", "会議の資料", "合宿の予算", "部室の鍵", "発表のスライド", "牛乳"]


def _note(rng: random.Random) -> tuple[str, str]:
    title = "".join(rng.sample(WORDS, 2))
    body = "、".join(
        rng.choice(WORDS) + "は" + rng.choice(WORDS) for _ in range(rng.randint(4, 20))
    )
    return title, body + "。"


def _ms(samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return f"p50 {statistics.median(ordered) * 1000:6.1f} ms, p99 {p99 * 1000:6.1f} ms"


async def run(notes: int, searches_count: int) -> None:
    """Fill one server's notebook with notes, then time writes, reads and searches."""
    rng = random.Random(14)
    with tempfile.TemporaryDirectory() as folder:
        database = create_database(f"sqlite+aiosqlite:///{Path(folder) / 'bench.db'}")
        async with database.engine.begin() as connection:
            await connection.run_sync(metadata.create_all)
        notebook_clock = ManualClock(datetime(2026, 12, 1, tzinfo=UTC))
        notebook = Notebook(database.sessions, notebook_clock)
        author = Person(1, "hana")
        writes: list[float] = []
        for _ in range(notes):
            title, body = _note(rng)
            started = time.perf_counter()
            await notebook.write(1, 2, author, body, title)
            writes.append(time.perf_counter() - started)
        reads: list[float] = []
        searches: list[float] = []
        cached: list[float] = []
        for n in range(searches_count):
            query = QUERIES[n % len(QUERIES)]
            started = time.perf_counter()
            async with database.sessions() as session:
                rows = select(Note.id, Note.title, Note.body, Note.terms).where(Note.guild_id == 1)
                (await session.execute(rows)).all()
            reads.append(time.perf_counter() - started)
            # A fresh notebook has nothing cached, like the first search after a change.
            fresh = Notebook(database.sessions, notebook_clock)
            started = time.perf_counter()
            await fresh.search(1, query)
            searches.append(time.perf_counter() - started)
            started = time.perf_counter()
            hits = await notebook.search(1, query)
            cached.append(time.perf_counter() - started)
        await database.dispose()
    print(f"notebook of {notes} notes, one server, SQLite")
    print(f"  write a note (terms on the worker, insert): {_ms(writes)}")
    print(f"  read every note with its terms (on loop):   {_ms(reads)}")
    print(f"  search after a change (read + rank):        {_ms(searches)}")
    print(f"  search, notebook unchanged (rank only):     {_ms(cached)}; last hits {len(hits)}")


def main() -> None:
    """Parse options and run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--short", action="store_true", help="the same paths in seconds: 50 notes, 5 searches"
    )
    args = parser.parse_args()
    asyncio.run(run(50, 5) if args.short else run(MAX_NOTES_PER_SERVER, 60))


if __name__ == "__main__":
    main()
