"""The knowledge outline the model reads: does it hold the answering page, and what does it cost.

For every labelled question (tests/knowledge/fixtures/questions) the outline the chat and general
prompts would carry (`<knowledge_outline>`, built by bot/knowledge/outline.py for the question in
a DM scope, which reads the shared base) is checked for the answering page: its line with every
section heading (the model can pick the section), or its title only (a larger base). Then the
outline's size per question, in characters and in tokens (cl100k, from the tokenizer file litellm
ships; nothing is downloaded), on the shipped knowledge_base/, on the community fixture, and on a
300-page base (the community pages plus generated ones).

Run `python bench/kb_outline.py` (or `--short`: the community fixture only).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kb_search import write_corpus

import bot.knowledge.table  # noqa: F401 - registers the kb tables
from bot.knowledge.index import KnowledgeIndex
from bot.knowledge.outline import Outliner, page_line
from bot.runtime.clock import ManualClock
from bot.servers import ServerScope
from bot.settings import Settings
from bot.storage.engine import Base, create_database
from tests.knowledge.question_set import COMMUNITY, Question, load_questions

SHIPPED = Path(__file__).resolve().parents[1] / "knowledge_base"
BUDGET = Settings.model_fields["kb_outline_chars"].default
TARGET_PAGE_SHARE = 0.99
LARGE_BASE_PAGES = 300


def token_counter() -> tuple[str, Callable[[str], int]]:
    """cl100k_base from litellm's bundled file when it loads offline, else chars / 2."""
    spec = importlib.util.find_spec("litellm")
    if spec and spec.submodule_search_locations:
        folder = Path(next(iter(spec.submodule_search_locations)))
        os.environ.setdefault(
            "TIKTOKEN_CACHE_DIR", str(folder / "litellm_core_utils" / "tokenizers")
        )
    try:
        import tiktoken

        encoding = tiktoken.get_encoding("cl100k_base")
    except Exception:  # no tokenizer on this machine: a rough estimate is still a bound
        return "estimated tokens (chars / 2)", lambda text: len(text) // 2
    return "cl100k tokens", lambda text: len(encoding.encode(text))


async def load_index(root: Path, temp: str, name: str) -> KnowledgeIndex:
    """The knowledge index of root, as the bot builds it (BM25, no embeddings)."""
    database = create_database(f"sqlite+aiosqlite:///{temp}/{name}.db")
    async with database.engine.begin() as connection:
        await connection.run_sync(Base.metadata.create_all)
    index = KnowledgeIndex(root, database.sessions, ManualClock(datetime(2026, 12, 1, tzinfo=UTC)))
    await index.load()
    return index


def _holds(index: KnowledgeIndex, outline: str, question: Question) -> tuple[bool, bool]:
    """Whether the outline holds an answering page with all its sections, or by title at least."""
    full = titled = False
    for path in question.expected:
        analysis = index.page(path, ServerScope.DM)
        if analysis is None:
            continue
        full |= page_line(path, analysis) in outline
        titled |= f"\n{path}: " in outline
    return full, titled


def _share(part: Sequence[bool]) -> str:
    return f"{sum(part):3d}/{len(part):3d} = {sum(part) / (len(part) or 1):6.1%}"


async def coverage(
    index: KnowledgeIndex,
    outliner: Outliner,
    questions: Sequence[Question],
    count: Callable[[str], int],
    label: str,
) -> float:
    """Print how often the outline holds the answering page, and its size; the page share."""
    full: list[bool] = []
    titled: list[bool] = []
    chars: list[int] = []
    tokens: list[int] = []
    parts: dict[str, list[bool]] = {"English": [], "Japanese": [], "low-overlap": []}
    for question in questions:
        outline = await outliner.outline(question.text, ServerScope.DM)
        with_sections, by_title = _holds(index, outline, question)
        full.append(with_sections)
        titled.append(by_title)
        parts["English" if question.english else "Japanese"].append(with_sections)
        if question.low_overlap:
            parts["low-overlap"].append(with_sections)
        chars.append(len(outline))
        tokens.append(count(outline))
    print(f"{label}:")
    print(f"  answering page with its sections in the outline  {_share(full)}")
    print(f"  answering page at least by its title             {_share(titled)}")
    for name, part in parts.items():
        if part:
            print(f"    {name:12s} with its sections              {_share(part)}")
    print(
        f"  outline size per question: {statistics.median(chars):,.0f} chars median "
        f"(max {max(chars):,}), {statistics.median(tokens):,.0f} tokens median "
        f"(max {max(tokens):,}); budget {outliner.budget_chars:,} chars"
    )
    return sum(titled) / (len(titled) or 1)


async def sizes(
    index: KnowledgeIndex, outliner: Outliner, questions: Sequence[str], count: Callable[[str], int]
) -> tuple[int, int]:
    """The largest outline over the questions: characters and tokens."""
    chars = tokens = 0
    for text in questions:
        outline = await outliner.outline(text, ServerScope.DM)
        chars, tokens = max(chars, len(outline)), max(tokens, count(outline))
    return chars, tokens


async def run(short: bool, batch: str | None) -> None:
    """Coverage on the labelled questions; sizes on the shipped, community and 300-page bases."""
    unit, count = token_counter()
    questions = [q for q in load_questions() if batch is None or q.batch == batch]
    with tempfile.TemporaryDirectory(prefix="kb-outline-") as temp:
        community = await load_index(COMMUNITY, temp, "community")
        pages = len(community.paths())
        share = await coverage(
            community,
            Outliner(community, BUDGET),
            questions,
            count,
            f"community fixture ({pages} pages), {len(questions)} questions"
            + (f" of batch {batch}" if batch else ""),
        )
        verdict = "ok" if share >= TARGET_PAGE_SHARE else "UNDER TARGET"
        print(f"  target: the answering page in the outline >= {TARGET_PAGE_SHARE:.0%}: {verdict}")
        if short:
            return
        texts = [q.text for q in questions]
        shipped = await load_index(SHIPPED, temp, "shipped")
        chars, tokens = await sizes(shipped, Outliner(shipped, BUDGET), texts, count)
        print(
            f"shipped knowledge_base/ ({len(shipped.paths())} pages): the outline adds {chars:,} "
            f"chars, {tokens:,} {unit} to every chat and general prompt"
        )
        root = Path(temp) / "large"
        # The generated pages come first in path order, so the community pages' titles are
        # listed only when search ranks them, never by the luck of the alphabet.
        write_corpus(
            root / "archive", LARGE_BASE_PAGES - pages, 5_000 * LARGE_BASE_PAGES, random.Random(7)
        )
        shutil.copytree(COMMUNITY, root / "community")
        large = await load_index(root, temp, "large")
        started = time.perf_counter()
        await Outliner(large, BUDGET).outline("")
        print(
            f"{len(large.paths())}-page base: the pages' outline lines built in "
            f"{(time.perf_counter() - started) * 1000:.1f} ms (on the event loop, once per scope "
            "and change of the files)"
        )
        prefixed = [
            Question(
                q.batch,
                q.text,
                frozenset(f"community/{p}" for p in q.expected),
                q.held_out,
                q.low_overlap,
            )
            for q in questions
        ]
        await coverage(
            large,
            Outliner(large, BUDGET),
            prefixed,
            count,
            f"{len(large.paths())}-page base (the community pages among generated ones)",
        )


def main() -> None:
    """Parse options and run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="the community fixture only")
    parser.add_argument("--batch", help="one batch of questions, e.g. 4-meaning")
    args = parser.parse_args()
    asyncio.run(run(args.short, args.batch))


if __name__ == "__main__":
    main()
