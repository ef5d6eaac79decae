"""The labelled knowledge questions (fixtures/questions/<batch>/{tuning,held_out}.tsv) over the
community fixture, and how a ranker is scored on them."""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"
COMMUNITY = FIXTURES / "community"
QUESTIONS = FIXTURES / "questions"
PARTS = {"tuning.tsv": False, "held_out.tsv": True}
_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


@dataclass(frozen=True, slots=True)
class Question:
    """A labelled question: its batch, the text and the files that answer it."""

    batch: str
    text: str
    expected: frozenset[str]
    held_out: bool
    # Shares at most one content word with its page (listed by the batch's low_overlap.txt).
    low_overlap: bool = False

    @property
    def english(self) -> bool:
        """Whether the question is written in English only."""
        return not _JAPANESE.search(self.text)


def load_questions(folder: Path = QUESTIONS) -> list[Question]:
    """Every batch in name order, tuning part first (`expected|alternative<TAB>question`).

    A batch's `low_overlap.txt` lists (one a line, counted from 1 among the question lines of
    its held-out part) the questions that share at most one content word with their page.
    """
    questions = []
    for batch in sorted(p for p in folder.iterdir() if p.is_dir()):
        listed = batch / "low_overlap.txt"
        low = {int(n) for n in listed.read_text("utf-8").split()} if listed.exists() else set()
        for name, held_out in PARTS.items():
            path = batch / name
            if not path.exists():
                continue
            number = 0
            for line in path.read_text("utf-8").splitlines():
                if not line.strip() or line.startswith("#"):
                    continue
                number += 1
                expected, text = line.split("\t")
                questions.append(
                    Question(
                        batch.name,
                        text,
                        frozenset(expected.split("|")),
                        held_out,
                        held_out and number in low,
                    )
                )
    return questions


def batches(questions: Sequence[Question]) -> list[str]:
    """The batch names in order."""
    return list(dict.fromkeys(q.batch for q in questions))


# A ranker maps a question to file paths, best first.
Ranker = Callable[[str], list[str]]


def rank_of(rank: Ranker, question: Question) -> int | None:
    """Where the first answering file comes (0 = first), or None when it is not found."""
    files = list(dict.fromkeys(rank(question.text)))
    return next((i for i, p in enumerate(files) if p in question.expected), None)


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
        position = rank_of(rank, question)
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
