"""Fused ranking: the shortcut for common terms never changes the top sections."""

from __future__ import annotations

import random

import pytest

from bot.knowledge import ranking
from bot.knowledge.ranking import FusedIndex
from bot.search.bigrams import bigram_counts
from bot.search.bm25 import QueryPlan

WORDS = ["さーばー", "ろーる", "年末年始", "通知", "配信", "絵文字", "参加", "ban", "event", "鯖"]


def _random_index(rng: random.Random, sections: int) -> FusedIndex:
    index = FusedIndex()
    for doc in range(sections):
        # The first two words are in most sections (common), the rest in few.
        words = [w for i, w in enumerate(WORDS) if rng.random() < (0.7 if i < 2 else 0.08)]
        terms = {w: float(rng.randint(1, 4)) for w in words}
        index.add(doc, terms, dict(bigram_counts(words)), 0.5 if doc % 7 == 0 else 1.0)
    return index


def _random_plan(rng: random.Random) -> QueryPlan:
    words = rng.sample(WORDS, rng.randint(1, 4))
    concepts = [[(w, 1.0), *((s, 0.5) for s in rng.sample(WORDS, 1) if s != w)] for w in words]
    grams = [(w, tuple(dict.fromkeys(bigram_counts([w])))) for w in words if not w.isascii()]
    return QueryPlan(words=concepts, bigrams=[(w, g) for w, g in grams if g])


def test_the_common_term_shortcut_gives_the_exact_top_sections(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ranking, "COMMON_POSTINGS", 10)
    rng = random.Random(15)
    index = _random_index(rng, 120)
    shortcuts = 0
    for _ in range(300):
        plan = _random_plan(rng)
        pruned = index._search(plan, 5, prune=True)
        exact = index._search(plan, 5, prune=False)
        if pruned is not None:
            shortcuts += 1
            assert [(s.doc_id, round(s.score, 9)) for s in pruned] == [
                (s.doc_id, round(s.score, 9)) for s in exact or []
            ]
        assert index.search(plan, 5) == (pruned if pruned is not None else exact)
    assert shortcuts > 50  # the shortcut was really taken, not only the full pass


def test_a_short_intro_counts_half() -> None:
    index = FusedIndex()
    index.add(1, {"ハロウィン": 1.0}, {}, 0.5)
    index.add(2, {"ハロウィン": 1.0}, {})
    plan = QueryPlan(words=[[("ハロウィン", 1.0)]], bigrams=[])

    first, second = index.search(plan, 2)

    assert (first.doc_id, second.doc_id) == (2, 1)
    assert second.score == pytest.approx(first.score / 2)


def _faq_and_rules() -> FusedIndex:
    index = FusedIndex()
    index.add(1, {"だめ": 3.0}, {})  # a FAQ heading that says だめ three times over
    index.add(2, {"だめ": 1.0, "nsfw": 1.0, "画像": 1.0}, {})  # the rule on NSFW images
    for doc in range(3, 40):
        filler: dict[str, float] = {f"word{doc}": 2.0}
        if doc % 2 == 0:
            filler["nsfw"] = 1.0
        if doc % 5 == 0:
            filler["だめ"] = 1.0
        index.add(doc, filler, {})
    return index


def _top(index: FusedIndex, plan: QueryPlan) -> int:
    return index.search(plan, 1)[0].doc_id


def test_a_section_matching_more_of_the_question_beats_one_repeating_a_single_word(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plan = QueryPlan(words=[[("だめ", 1.0)], [("nsfw", 1.0)]], bigrams=[])

    assert _top(_faq_and_rules(), plan) == 2
    monkeypatch.setattr(ranking, "COORDINATION_POWER", 0.0)
    assert _top(_faq_and_rules(), plan) == 1  # by BM25 alone the repeated word won
