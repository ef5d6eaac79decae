"""The BM25 ranking and its incremental inverted index."""

from __future__ import annotations

import math

import pytest

from bot.search.bm25 import BM25Index


def _index(docs: dict[int, dict[str, float]]) -> BM25Index:
    index = BM25Index()
    for doc_id, terms in docs.items():
        index.add(doc_id, terms)
    return index


def _ids(index: BM25Index, *terms: str) -> list[int]:
    return [s.doc_id for s in index.search([[(t, 1.0)] for t in terms], 10)]


def test_idf_matches_the_okapi_formula_and_is_never_negative() -> None:
    index = _index({1: {"a": 1}, 2: {"a": 1}, 3: {"b": 1}})

    assert index.idf("b") == pytest.approx(math.log(1 + (3 - 1 + 0.5) / (1 + 0.5)))
    assert index.idf("a") > 0
    assert index.idf("b") > index.idf("a")


def test_a_rare_term_outranks_a_common_one() -> None:
    index = _index(
        {1: {"common": 1, "x": 5}, 2: {"common": 1, "rare": 1, "x": 5}, 3: {"common": 1}}
    )

    assert _ids(index, "common", "rare")[0] == 2


def test_repeating_a_term_helps_with_diminishing_returns() -> None:
    index = _index(
        {1: {"t": 1, "pad": 9}, 2: {"t": 2, "pad": 8}, 3: {"t": 8, "pad": 2}, 4: {"o": 10}}
    )
    scores = {s.doc_id: s.score for s in index.search([[("t", 1.0)]], 10)}

    assert scores[1] < scores[2] < scores[3]
    assert scores[3] - scores[2] < (scores[2] - scores[1]) * 6  # saturation: 6x the tf, not 6x


def test_longer_documents_are_penalised_for_the_same_count() -> None:
    index = _index({1: {"t": 1, "pad": 2}, 2: {"t": 1, "pad": 50}})

    assert _ids(index, "t") == [1, 2]


def test_removing_a_document_gives_the_same_ranking_as_never_adding_it() -> None:
    docs = {1: {"a": 2, "b": 1}, 2: {"a": 1, "c": 3}, 3: {"b": 2, "c": 1}}
    incremental = _index(docs)
    incremental.add(4, {"a": 5, "zzz": 1})
    incremental.remove(4)
    fresh = _index(docs)

    query = [[("a", 1.0)], [("c", 1.0)]]
    assert incremental.search(query, 10) == fresh.search(query, 10)
    assert incremental.document_frequency("zzz") == 0
    assert len(incremental) == 3


def test_adding_an_id_again_replaces_the_document() -> None:
    index = _index({1: {"old": 1}, 2: {"other": 1}})
    index.add(1, {"new": 1})

    assert _ids(index, "old") == []
    assert _ids(index, "new") == [1]


def test_relevance_is_one_for_a_perfect_match_and_lower_for_a_partial_one() -> None:
    index = _index({1: {"a": 200, "b": 200}, 2: {"a": 1, "pad": 399}, 3: {"c": 1}})
    relevance = {s.doc_id: s.relevance for s in index.search([[("a", 1.0)], [("b", 1.0)]], 10)}

    assert relevance[1] > 0.95
    assert relevance[2] < 0.3
    assert all(0.0 <= r <= 1.0 for r in relevance.values())


def test_a_synonym_counts_less_than_the_word_itself() -> None:
    index = _index({1: {"join": 1}, 2: {"参加": 1}, 3: {"other": 1}})
    results = index.search([[("参加", 1.0), ("join", 0.5)]], 10)

    assert [s.doc_id for s in results] == [2, 1]


def test_an_empty_index_or_query_finds_nothing() -> None:
    assert BM25Index().search([[("a", 1.0)]], 5) == []
    assert _index({1: {"a": 1}}).search([], 5) == []
    assert _index({1: {"a": 1}}).search([[("a", 1.0)]], 0) == []
