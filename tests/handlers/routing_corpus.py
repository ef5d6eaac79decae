"""The labelled routing corpus (routing_corpus/*.tsv, one file a batch) and how a router is
scored on it."""

from __future__ import annotations

import csv
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

CORPUS_DIR = Path(__file__).with_name("routing_corpus")
HANDLERS = ("reminder", "weather", "chat", "general")
TUNE = "tune"
HELD_OUT = "held-out"
# Handlers whose tools act on the world or need a request: chat sent there is the worst miss.
TOOL_HANDLERS = frozenset({"reminder", "weather"})


@dataclass(frozen=True)
class Mention:
    """One labelled mention, with the batch it was written in."""

    batch: str
    split: str
    handler: str
    group: str
    lang: str
    text: str


def load_batch(path: Path) -> list[Mention]:
    """The rows of one batch file (comment lines start with #; no split column: all held out)."""
    with path.open(encoding="utf-8") as handle:
        lines = [line for line in handle if not line.startswith("#")]
    return [
        Mention(
            batch=path.stem,
            split=row.get("split") or HELD_OUT,
            handler=row["handler"],
            group=row["group"],
            lang=row["lang"],
            text=row["text"],
        )
        for row in csv.DictReader(lines, delimiter="\t")
    ]


def load_corpus(folder: Path = CORPUS_DIR) -> list[Mention]:
    """Every batch, in the order of the file names."""
    return [m for path in sorted(folder.glob("*.tsv")) for m in load_batch(path)]


def batches(mentions: Iterable[Mention]) -> list[str]:
    """The batch names in corpus order."""
    return list(dict.fromkeys(m.batch for m in mentions))


def miss_cost(expected: str, got: str) -> int:
    """0 for a hit; 1 for a miss the general or chat handler absorbs; 2 between the tool
    handlers; 3 for chat or a question sent to a tool handler it does not belong to."""
    if expected == got:
        return 0
    if got in TOOL_HANDLERS:
        return 2 if expected in TOOL_HANDLERS else 3
    return 1


@dataclass(frozen=True)
class Score:
    """How a router did on some mentions."""

    total: int
    hits: int
    cost: int
    confusion: Counter[tuple[str, str]]
    misses: list[tuple[Mention, str]]

    @property
    def accuracy(self) -> float:
        """Share of mentions sent to their handler."""
        return self.hits / self.total if self.total else 0.0

    @property
    def cost_per_100(self) -> float:
        """Weighted miss cost per 100 mentions (see miss_cost)."""
        return 100 * self.cost / self.total if self.total else 0.0


def evaluate(mentions: Iterable[Mention], pick: Callable[[str], str]) -> Score:
    """Route each mention with pick and compare with its label."""
    confusion: Counter[tuple[str, str]] = Counter()
    misses: list[tuple[Mention, str]] = []
    total = hits = cost = 0
    for mention in mentions:
        got = pick(mention.text)
        total += 1
        confusion[(mention.handler, got)] += 1
        cost += miss_cost(mention.handler, got)
        if got == mention.handler:
            hits += 1
        else:
            misses.append((mention, got))
    return Score(total, hits, cost, confusion, misses)
