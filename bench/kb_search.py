"""Knowledge-base benchmark: cold index, warm start, one-file reindex, query latency.

Run `python bench/kb_search.py` (1,000 files, ~5 MB: the cold index takes a minute or two,
janome being the bottleneck) or `python bench/kb_search.py --files 100` for a quick look
(`--short`: 20 files, the same paths in seconds).
Targets: query p50 <= 5 ms, one-file reindex <= 200 ms, warm start <= 2 s.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import resource
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bot.knowledge.table  # noqa: F401 - registers the kb tables
from bot.knowledge.analysis import DocumentAnalysis, analyse_document
from bot.knowledge.index import KnowledgeIndex
from bot.runtime.clock import ManualClock
from bot.storage.engine import Base, create_database

TARGET_QUERY_P50_MS = 5.0
TARGET_REINDEX_MS = 200.0
TARGET_WARM_START_S = 2.0

KANJI = (
    "会議参加設定通知画像音声配信予定週末勉強資料質問回答規則運営管理登録変更削除招待役割"
    "作業時間場所料金交通天気旅行料理写真動画記事感想練習試合大会準備結果報告相談連絡"
)
KATAKANA = (
    "サーバー",
    "チャンネル",
    "イベント",
    "ロール",
    "ボイス",
    "メッセージ",
    "リンク",
    "ゲーム",
    "プロジェクト",
    "スケジュール",
    "テンプレート",
    "ガイド",
    "ルール",
    "アカウント",
    "ボット",
)
_ENGLISH_WORDS = (
    "server channel event role voice message invite game project schedule template guide rule "
    "account bot moderation report spam backup deploy release token webhook permission emoji "
    "stream music tournament meetup study session homework deadline calendar reminder weather "
    "forecast laundry umbrella recipe travel photo video article review practice result"
)
ENGLISH = _ENGLISH_WORDS.split()
JA_TAILS = (
    "について説明します。",
    "は毎週更新されます。",
    "を確認してください。",
    "の手順です。",
    "が必要な場合は運営に連絡してください。",
    "はここから参加できます。",
)
EN_TAILS = (
    "is updated every week.",
    "needs approval from a moderator.",
    "can be changed in the settings.",
    "is explained below.",
    "works in every channel.",
)


def _japanese_word(rng: random.Random) -> str:
    if rng.random() < 0.4:
        return rng.choice(KATAKANA)
    return rng.choice(KANJI) + rng.choice(KANJI)


def _paragraph(rng: random.Random, japanese: bool) -> str:
    sentences = []
    for _ in range(rng.randint(3, 6)):
        if japanese:
            words = "の".join(_japanese_word(rng) for _ in range(rng.randint(2, 3)))
            sentences.append(words + rng.choice(JA_TAILS))
        else:
            words = " ".join(rng.choice(ENGLISH) for _ in range(rng.randint(3, 6)))
            sentences.append(f"The {words} {rng.choice(EN_TAILS)}")
    return ("" if japanese else " ").join(sentences)


def _document(rng: random.Random, number: int, target_bytes: int) -> str:
    japanese = rng.random() < 0.6
    title = (
        f"{_japanese_word(rng)}{_japanese_word(rng)}ガイド {number}"
        if japanese
        else (f"{rng.choice(ENGLISH).title()} {rng.choice(ENGLISH)} guide {number}")
    )
    tags = ", ".join(rng.sample(ENGLISH, 2))
    parts = [f"---\ntitle: {title}\ntags: [{tags}]\n---\n# {title}\n"]
    size = len(parts[0].encode())
    while size < target_bytes:
        heading = _japanese_word(rng) if japanese else rng.choice(ENGLISH).title()
        section = (
            f"\n## {heading}\n\n"
            + "\n\n".join(
                _paragraph(rng, japanese if rng.random() < 0.8 else not japanese)
                for _ in range(rng.randint(1, 3))
            )
            + "\n"
        )
        parts.append(section)
        size += len(section.encode())
    return "".join(parts)


def write_corpus(root: Path, files: int, total_bytes: int, rng: random.Random) -> int:
    """Generate files markdown files of about total_bytes in all under root."""
    per_file = total_bytes // files
    written = 0
    for number in range(files):
        folder = root / f"topic{number % 20:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        data = _document(rng, number, per_file).encode()
        (folder / f"doc{number:04d}.md").write_bytes(data)
        written += len(data)
    return written


def _queries(rng: random.Random, count: int) -> list[str]:
    queries = []
    for _ in range(count):
        if rng.random() < 0.6:
            queries.append(f"{_japanese_word(rng)}の{_japanese_word(rng)}はどうすればいい？")
        else:
            queries.append(f"how do I {rng.choice(ENGLISH)} the {rng.choice(ENGLISH)}?")
    return queries


class CountingAnalyser:
    """Counts tokenisations, to prove the warm start does none."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, text: str, fallback_title: str) -> DocumentAnalysis:
        self.calls += 1
        return analyse_document(text, fallback_title)


def percentile(values: list[float], share: float) -> float:
    """The value below which share of values lie."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _verdict(value: float, target: float) -> str:
    return "ok" if value <= target else "OVER TARGET"


async def run(files: int, total_mb: float, queries: int, seed: int) -> None:
    rng = random.Random(seed)
    clock = ManualClock(datetime(2025, 11, 30, tzinfo=UTC))
    with tempfile.TemporaryDirectory(prefix="kb-bench-") as temp:
        root = Path(temp) / "knowledge_base"
        size = write_corpus(root, files, int(total_mb * 1_000_000 * files / 1000), rng)
        print(f"corpus: {files} files, {size / 1e6:.2f} MB in {root}")
        database = create_database(f"sqlite+aiosqlite:///{temp}/bench.db")
        async with database.engine.begin() as connection:
            await connection.run_sync(Base.metadata.create_all)

        cold_counter = CountingAnalyser()
        cold = KnowledgeIndex(root, database.sessions, clock, analyse=cold_counter)
        started = time.perf_counter()
        await cold.load()
        cold_s = time.perf_counter() - started
        print(
            f"cold index:       {cold_s:8.2f} s  ({cold_counter.calls} files tokenised, "
            f"{size / cold_s / 1000:.0f} kB/s, {cold.section_count()} sections)"
        )

        warm_counter = CountingAnalyser()
        warm = KnowledgeIndex(root, database.sessions, clock, analyse=warm_counter)
        started = time.perf_counter()
        await warm.load()
        warm_s = time.perf_counter() - started
        print(
            f"warm start:       {warm_s:8.2f} s  ({warm_counter.calls} files tokenised) "
            f"target <= {TARGET_WARM_START_S:g} s: {_verdict(warm_s, TARGET_WARM_START_S)}"
        )

        started = time.perf_counter()
        idle = await warm.refresh()
        idle_ms = (time.perf_counter() - started) * 1000
        print(
            f"idle refresh:     {idle_ms:8.1f} ms (the hot-reload pass every 2 s; "
            f"changed={idle.changed})"
        )

        edited = root / "topic00" / "doc0000.md"
        edited.write_text(edited.read_text("utf-8") + "\n## 追記\n\n新しい段落を追加しました。\n")
        started = time.perf_counter()
        await warm.refresh_file("topic00/doc0000.md")
        reindex_ms = (time.perf_counter() - started) * 1000
        print(
            f"one-file reindex: {reindex_ms:8.1f} ms (editor path, {edited.stat().st_size} bytes) "
            f"target <= {TARGET_REINDEX_MS:g} ms: {_verdict(reindex_ms, TARGET_REINDEX_MS)}"
        )
        edited.write_text(edited.read_text("utf-8") + "\n## 再追記\n\nもう一段落。\n")
        started = time.perf_counter()
        report = await warm.refresh()
        refresh_ms = (time.perf_counter() - started) * 1000
        print(
            f"edit via refresh: {refresh_ms:8.1f} ms (scan + hash + reindex; "
            f"updated={report.updated})"
        )

        questions = _queries(rng, queries)
        for question in questions[:20]:
            warm.search(question)  # warm the caches of the query path
        latencies = []
        found = 0
        for question in questions:
            started = time.perf_counter()
            hits = warm.search(question, 5)
            latencies.append((time.perf_counter() - started) * 1000)
            found += bool(hits)
        p50, p99 = percentile(latencies, 0.50), percentile(latencies, 0.99)
        print(
            f"query latency:    p50 {p50:.2f} ms, p99 {p99:.2f} ms, mean "
            f"{statistics.fmean(latencies):.2f} ms over {len(latencies)} queries "
            f"({found} with hits) target p50 <= {TARGET_QUERY_P50_MS:g} ms: "
            f"{_verdict(p50, TARGET_QUERY_P50_MS)}"
        )
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak RSS:         {peak_mb:8.0f} MB (two janome tokenizers included)")
        await database.dispose()


def main() -> None:
    """Parse options and run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000, help="number of files (default 1000)")
    parser.add_argument(
        "--mb-per-1000", type=float, default=5.0, help="corpus size per 1,000 files in MB"
    )
    parser.add_argument("--queries", type=int, default=300, help="queries to time")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--short", action="store_true", help="the same paths in seconds: 20 files, 30 queries"
    )
    args = parser.parse_args()
    if args.short:
        args.files, args.queries = min(args.files, 20), min(args.queries, 30)
    asyncio.run(run(args.files, args.mb_per_1000, args.queries, args.seed))


if __name__ == "__main__":
    main()
