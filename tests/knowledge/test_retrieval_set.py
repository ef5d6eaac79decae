"""The labelled retrieval set: its shape, and the figures retrieval must reach on its held-out part.

`fixtures/community` is a community-style knowledge base; `fixtures/questions` holds casual
questions labelled with the file that answers them. `held_out.tsv` was written before retrieval
was tuned and is never tuned on; `python bench/kb_retrieval.py` prints the full figures.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.knowledge.index import KnowledgeIndex
from bot.runtime.clock import ManualClock
from tests.knowledge.conftest import remembered_analysis

FIXTURES = Path(__file__).parent / "fixtures"
COMMUNITY = FIXTURES / "community"
_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


@dataclass(frozen=True)
class Labelled:
    text: str
    expected: frozenset[str]

    @property
    def english(self) -> bool:
        return not _JAPANESE.search(self.text)


def _questions(name: str) -> list[Labelled]:
    rows = []
    for line in (FIXTURES / "questions" / name).read_text("utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            expected, text = line.split("\t")
            rows.append(Labelled(text, frozenset(expected.split("|"))))
    return rows


TUNING = _questions("tuning.tsv")
HELD_OUT = _questions("held_out.tsv")


@pytest.fixture
async def community(
    sessions: async_sessionmaker[AsyncSession], clock: ManualClock
) -> KnowledgeIndex:
    index = KnowledgeIndex(COMMUNITY, sessions, clock, analyse=remembered_analysis)
    await index.load()
    return index


def _ranks(index: KnowledgeIndex, questions: list[Labelled]) -> list[int | None]:
    ranks: list[int | None] = []
    for question in questions:
        files = list(dict.fromkeys(hit.path for hit in index.search(question.text, 10)))
        ranks.append(next((i for i, p in enumerate(files) if p in question.expected), None))
    return ranks


def _share(ranks: list[int | None], within: int) -> float:
    return sum(rank is not None and rank < within for rank in ranks) / len(ranks)


def test_the_set_is_large_bilingual_and_a_fifth_held_out() -> None:
    files = {p.relative_to(COMMUNITY).as_posix() for p in COMMUNITY.rglob("*.md")}
    everything = TUNING + HELD_OUT

    assert len(files) >= 30
    assert len(everything) >= 100
    assert len(HELD_OUT) >= len(everything) / 5
    assert sum(q.english for q in everything) >= len(everything) / 5
    assert all(q.expected <= files for q in everything), "a label names a missing file"
    assert not {q.text for q in TUNING} & {q.text for q in HELD_OUT}


def test_held_out_questions_find_their_file_first_at_least_80_percent_of_the_time(
    community: KnowledgeIndex,
) -> None:
    ranks = _ranks(community, HELD_OUT)

    assert _share(ranks, 1) >= 0.80
    assert _share(ranks, 3) >= 0.95


def test_held_out_english_questions_find_their_japanese_file_first_70_percent_of_the_time(
    community: KnowledgeIndex,
) -> None:
    english = [q for q in HELD_OUT if q.english]

    assert len(english) >= 5
    assert _share(_ranks(community, english), 1) >= 0.70


@pytest.mark.parametrize(
    ("question", "heading"),
    [
        ("XPってどうやって貯まるの", "レベルと経験値 > 経験値のたまり方"),
        ("ゲーム大会っていつやってる？", "ゲームナイト > 開催日時"),
        ("鯖の誕生日いつ？", "サーバー周年記念 > 開催時期"),
        ("画面共有のやり方", "配信・画面共有 > 画面共有のしかた"),
    ],
)
def test_the_answering_section_comes_before_the_files_one_line_intro(
    community: KnowledgeIndex, question: str, heading: str
) -> None:
    assert community.search(question, 1)[0].heading == heading
