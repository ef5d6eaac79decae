"""Retrieval quality on the fixture corpus: paraphrased questions find the right file first."""

from __future__ import annotations

import pytest

from bot.knowledge.index import KnowledgeIndex


@pytest.mark.parametrize(
    ("question", "expected_path", "heading_word"),
    [
        ("サーバーに入るには？", "faq.md", "参加"),
        ("how do I report spam", "moderation.md", "Reporting"),
        ("ニックネームを変えたい", "faq.md", "ニックネーム"),
        ("通知を減らしたい", "faq.md", "通知"),
        ("イベントはいつありますか", "events.md", ""),
        ("What events happen every week?", "events.md", ""),
        ("What are the server rules?", "rules.md", ""),
        ("リマインドの仕方", "otomo.md", "リマインダー"),
        ("Where can I pick roles?", "guides/getting-started.md", "Roles"),
        ("荒らしを見つけたらどうする？", "moderation.md", "Reporting"),
    ],
)
def test_the_right_file_ranks_first_for_a_paraphrased_question(
    index: KnowledgeIndex, question: str, expected_path: str, heading_word: str
) -> None:
    hits = index.search(question, 3)

    assert hits, f"nothing found for {question!r}"
    assert hits[0].path == expected_path
    assert heading_word in hits[0].heading


def test_hits_carry_the_citable_source_path_and_a_snippet(index: KnowledgeIndex) -> None:
    hit = index.search("how do I report spam", 1)[0]

    assert hit.source == "knowledge_base/moderation.md"
    assert hit.title == "Moderation guide"
    assert hit.heading == "Moderation guide > Reporting spam and abuse"
    assert "report" in hit.snippet.lower()
    assert hit.score > 0 and 0 < hit.relevance <= 1


def test_an_unrelated_question_finds_nothing(index: KnowledgeIndex) -> None:
    assert index.search("量子コンピュータの仕組み", 5) == []
    assert index.search("？？？", 5) == []
