"""Documents: how long reading a shared PDF or Word file takes, and how much memory it needs.

Run `python bench/documents.py`. It builds a 100-page PDF (Japanese and English on every page)
and a 5 MB Word file (text that compresses like real prose, with a table every 50 paragraphs),
then reads each through the child process the bot uses (`bot/agent/attachments/isolation.py`):
as the bot reads it by default (the first 50 pages, 20,000 characters) and whole. Figures: the
wall time from the bytes to the text (the child's start included), the parsing alone in this
process, and the child's peak resident memory. A tiny CSV shows what the child costs by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import docx

from bot.agent.attachments.documents import DocumentLimits, extract
from bot.agent.attachments.file_types import DocumentFormat
from bot.agent.attachments.isolation import Outcome, read_document
from tests.fakes.documents import pdf

# Kana and common kanji plus ASCII: random text of these compresses about as well as prose.
ALPHABET = (
    "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをん"
    "会議予算資料担当期限確認報告計画実施結果課題対応検討開始終了変更追加削除登録設定利用管理"
    "abcdefghijklmnopqrstuvwxyz0123456789      、。"
)
DEFAULTS = DocumentLimits()
WHOLE = DocumentLimits(max_pages=10_000, max_chars=10**9, seconds=300)


def sentence(rng: random.Random, length: int) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(length))


def long_pdf(pages: int) -> bytes:
    """pages pages of 40 lines each, Japanese and English."""
    rng = random.Random(7)
    return pdf(
        [
            "\n".join(
                f"第{page + 1}章 {line + 1}行目 line {line + 1}: {sentence(rng, 40)}"
                for line in range(40)
            )
            for page in range(pages)
        ]
    )


def large_word_file(target_bytes: int) -> bytes:
    """A .docx of at least target_bytes: paragraphs of random prose, a table now and then."""
    # About 380 bytes of the saved file per paragraph of 300 characters, after a skeleton of
    # 36 KB; built again a little longer when the guess fell short.
    paragraphs = max(1, (target_bytes - 36_000) // 370)
    while True:
        data = word_file(paragraphs)
        if len(data) >= target_bytes:
            return data
        paragraphs = int(paragraphs * target_bytes / len(data) * 1.02) + 1


def word_file(paragraphs: int) -> bytes:
    rng = random.Random(11)
    document = docx.Document()
    document.add_heading("議事録 Minutes", level=1)
    for number in range(paragraphs):
        document.add_paragraph(sentence(rng, 300))
        if number % 50 == 49:
            table = document.add_table(rows=3, cols=3)
            for row in table.rows:
                for cell in row.cells:
                    cell.text = sentence(rng, 12)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


async def measure(
    label: str, form: DocumentFormat, data: bytes, limits: DocumentLimits, runs: int
) -> None:
    """Print the wall time through the child, the parse time alone, and the child's memory."""
    walls: list[float] = []
    outcome = Outcome()
    for _ in range(runs):
        started = time.perf_counter()
        outcome = await read_document(form, data, limits)
        walls.append(time.perf_counter() - started)
    if outcome.extracted is None:
        raise SystemExit(f"{label}: not read ({outcome.failure})")
    parses = []
    for _ in range(runs):
        started = time.perf_counter()
        extract(form, data, limits)
        parses.append(time.perf_counter() - started)
    read = outcome.extracted
    pages = f", {read.pages_read} of {read.pages} pages" if read.pages is not None else ""
    print(
        f"  {label:<34} {statistics.median(walls) * 1e3:7.0f} ms through the child "
        f"(parsing alone {statistics.median(parses) * 1e3:6.0f} ms), "
        f"peak {outcome.peak_memory_kb / 1024:5.0f} MB, {len(read.text):,} chars{pages}"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--short", action="store_true", help="a 5-page PDF and a 100 KB DOCX")
    arguments = parser.parse_args()
    pages, word_bytes, runs = (5, 100_000, 1) if arguments.short else (100, 5_000_000, 3)

    started = time.perf_counter()
    report = long_pdf(pages)
    minutes = large_word_file(word_bytes)
    print(
        f"built a {pages}-page PDF ({len(report) / 1e6:.1f} MB) and a "
        f"{len(minutes) / 1e6:.1f} MB DOCX in {time.perf_counter() - started:.1f} s\n"
    )
    print(f"reading (median of {runs}):")
    await measure("tiny CSV (the child alone)", "csv", b"a,b\n1,2\n", DEFAULTS, runs)
    await measure(f"{pages}-page PDF, as the bot reads it", "pdf", report, DEFAULTS, runs)
    await measure(f"{pages}-page PDF, whole", "pdf", report, WHOLE, runs)
    label = f"{len(minutes) / 1e6:.1f} MB DOCX"
    await measure(f"{label}, as the bot reads it", "docx", minutes, DEFAULTS, runs)
    await measure(f"{label}, whole", "docx", minutes, WHOLE, runs)


if __name__ == "__main__":
    asyncio.run(main())
