"""Knowledge-base retrieval quality: hit@1, hit@3 and MRR on a labelled set, beside a baseline.

The set is `tests/knowledge/fixtures/community` (a community-style knowledge base) with the
questions in `tests/knowledge/fixtures/questions/` (`tuning.tsv`, and `held_out.tsv`, never tuned
on). Each question names the file that answers it; a file counts as found at its best section's
rank. The baseline is plain character-bigram BM25 over the same sections.

Run `python bench/kb_retrieval.py` (adds query latency at 1,000 generated files, a minute or
two for the cold index) or `python bench/kb_retrieval.py --files 0` for the quality figures only.
Targets on the held-out part: hit@1 >= 80 %, hit@3 >= 95 %, English hit@1 >= 70 %.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kb_search import percentile, write_corpus

import bot.storage.knowledge  # noqa: F401 - registers the kb tables
from bot.knowledge.documents import parse_document
from bot.knowledge.index import KnowledgeIndex
from bot.runtime.clock import ManualClock
from bot.search.bm25 import BM25Index
from bot.storage.base import Base
from bot.storage.engine import create_database
from bot.text.analysis import normalize

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "knowledge" / "fixtures"
CORPUS = FIXTURES / "community"
QUESTIONS = FIXTURES / "questions"
TARGETS = {"hit@1": 0.80, "hit@3": 0.95, "english hit@1": 0.70}
TARGET_QUERY_P50_MS = 5.0
_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


@dataclass(frozen=True, slots=True)
class Question:
    """A labelled question: the text and the files that answer it."""

    text: str
    expected: frozenset[str]
    held_out: bool

    @property
    def english(self) -> bool:
        """Whether the question is written in English only."""
        return not _JAPANESE.search(self.text)


def load_questions(folder: Path = QUESTIONS) -> list[Question]:
    """Both parts of the labelled set (`expected|alternative<TAB>question` lines)."""
    questions = []
    for name, held_out in (("tuning.tsv", False), ("held_out.tsv", True)):
        for line in (folder / name).read_text("utf-8").splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            expected, text = line.split("\t")
            questions.append(Question(text, frozenset(expected.split("|")), held_out))
    return questions


# A ranker maps a question to file paths, best first.
Ranker = Callable[[str], list[str]]


@dataclass(frozen=True, slots=True)
class Figures:
    """hit@1, hit@3 and MRR of one ranker over some questions."""

    count: int
    hit1: float
    hit3: float
    mrr: float

    def line(self) -> str:
        """The figures as a fixed-width line."""
        return (
            f"n={self.count:3d}  hit@1 {self.hit1:6.1%}  hit@3 {self.hit3:6.1%}  MRR {self.mrr:.3f}"
        )


def evaluate(rank: Ranker, questions: Sequence[Question]) -> tuple[Figures, list[Question]]:
    """The figures, and the questions whose file did not come first."""
    reciprocal: list[float] = []
    misses: list[Question] = []
    for question in questions:
        files = list(dict.fromkeys(rank(question.text)))
        position = next((i for i, p in enumerate(files) if p in question.expected), None)
        reciprocal.append(0.0 if position is None else 1.0 / (position + 1))
        if position != 0:
            misses.append(question)
    count = len(questions) or 1
    return (
        Figures(
            len(questions),
            sum(r == 1.0 for r in reciprocal) / count,
            sum(r >= 1 / 3 for r in reciprocal) / count,
            statistics.fmean(reciprocal) if reciprocal else 0.0,
        ),
        misses,
    )


def _bigrams(text: str) -> dict[str, float]:
    chars = [c for c in normalize(text) if c.isalnum()]
    counts: dict[str, float] = {}
    for first, second in itertools.pairwise(chars):
        counts[first + second] = counts.get(first + second, 0.0) + 1.0
    return counts


def bigram_baseline(root: Path) -> Ranker:
    """Plain character-bigram BM25 over the same sections (title and headings included)."""
    index = BM25Index()
    paths: list[str] = []
    for file in sorted(root.rglob("*.md")):
        parsed = parse_document(file.read_text("utf-8"), file.stem)
        for section in parsed.sections:
            index.add(
                len(paths), _bigrams(" ".join((parsed.title, *section.heading_path, section.text)))
            )
            paths.append(file.relative_to(root).as_posix())

    def rank(question: str) -> list[str]:
        concepts = [[(term, 1.0)] for term in _bigrams(question)]
        return [paths[scored.doc_id] for scored in index.search(concepts, 30)]

    return rank


async def _index(root: Path, temp: str) -> KnowledgeIndex:
    database = create_database(f"sqlite+aiosqlite:///{temp}/bench.db")
    async with database.engine.begin() as connection:
        await connection.run_sync(Base.metadata.create_all)
    index = KnowledgeIndex(root, database.sessions, ManualClock(datetime(2026, 12, 1, tzinfo=UTC)))
    await index.load()
    return index


def _report(name: str, rank: Ranker, questions: list[Question], show_misses: bool) -> None:
    parts = {
        "tuning": [q for q in questions if not q.held_out],
        "held-out": [q for q in questions if q.held_out],
        "held-out English": [q for q in questions if q.held_out and q.english],
        "all English": [q for q in questions if q.english],
        "all": questions,
    }
    print(f"{name}:")
    for part, chosen in parts.items():
        figures, misses = evaluate(rank, chosen)
        print(f"  {part:17s} {figures.line()}")
        if show_misses and part == "tuning":
            for miss in misses:
                want = "|".join(sorted(miss.expected))
                print(f"      miss: {miss.text}  (want {want}, got {rank(miss.text)[:3]})")


def _verdicts(rank: Ranker, questions: list[Question]) -> None:
    held = [q for q in questions if q.held_out]
    figures, _ = evaluate(rank, held)
    english, _ = evaluate(rank, [q for q in held if q.english])
    reached = {"hit@1": figures.hit1, "hit@3": figures.hit3, "english hit@1": english.hit1}
    for name, target in TARGETS.items():
        verdict = "ok" if reached[name] >= target else "UNDER TARGET"
        print(f"held-out {name:14s} {reached[name]:6.1%} target >= {target:.0%}: {verdict}")


async def _latency(files: int, questions: list[Question], seed: int) -> None:
    with tempfile.TemporaryDirectory(prefix="kb-retrieval-") as temp:
        root = Path(temp) / "knowledge_base"
        size = write_corpus(
            root / "generated", files, 5_000_000 * files // 1000, random.Random(seed)
        )
        shutil.copytree(CORPUS, root / "community")
        started = time.perf_counter()
        index = await _index(root, temp)
        print(
            f"latency corpus: {files} generated files ({size / 1e6:.2f} MB) + the community set, "
            f"{index.section_count()} sections, indexed in {time.perf_counter() - started:.1f} s"
        )
        texts = [q.text for q in questions] * 3
        for text in texts[:20]:
            index.search(text, 5)
        latencies = []
        for text in texts:
            started = time.perf_counter()
            index.search(text, 5)
            latencies.append((time.perf_counter() - started) * 1000)
        p50, p99 = percentile(latencies, 0.5), percentile(latencies, 0.99)
        verdict = "ok" if p50 <= TARGET_QUERY_P50_MS else "OVER TARGET"
        print(
            f"query latency:  p50 {p50:.2f} ms, p99 {p99:.2f} ms over {len(texts)} queries "
            f"target p50 <= {TARGET_QUERY_P50_MS:g} ms: {verdict}"
        )


async def run(files: int, show_misses: bool, seed: int) -> None:
    questions = load_questions()
    held = sum(q.held_out for q in questions)
    english = sum(q.english for q in questions)
    print(
        f"labelled set: {len(list(CORPUS.rglob('*.md')))} files, {len(questions)} questions "
        f"({held} held out, {english} in English)"
    )
    with tempfile.TemporaryDirectory(prefix="kb-retrieval-") as temp:
        index = await _index(CORPUS, temp)

        def otomo(question: str) -> list[str]:
            return [hit.path for hit in index.search(question, 10)]

        _report("character-bigram BM25 (baseline)", bigram_baseline(CORPUS), questions, False)
        _report("Otomo", otomo, questions, show_misses)
        intros = 0
        for question in questions:
            top = index.search(question.text, 1)
            intros += bool(top) and top[0].heading == top[0].title and len(top[0].text) <= 160
        print(f"  top section is a file's short intro for {intros} of {len(questions)} questions")
        _verdicts(otomo, questions)
    if files:
        await _latency(files, questions, seed)


def main() -> None:
    """Parse options and run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000, help="generated files for latency")
    parser.add_argument("--misses", action="store_true", help="list the tuning questions missed")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    asyncio.run(run(args.files, args.misses, args.seed))


if __name__ == "__main__":
    main()
