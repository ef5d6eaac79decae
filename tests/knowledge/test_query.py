"""Questions as members type them: question words, plurals, contractions, intro sections."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.knowledge.index import KnowledgeIndex
from bot.runtime.clock import ManualClock
from bot.search.bm25 import SYNONYM_WEIGHT, plan_query
from bot.search.synonyms import Vocabulary
from bot.search.terms import search_terms
from tests.knowledge.conftest import write_files

FAQ = """# よくある質問

## 途中から会話に入っても大丈夫？

もちろん大丈夫です。気軽に挨拶してください。

## 寝落ちしても大丈夫？

寝落ちしたら運営が AFK チャンネルに移動します。
"""

EVENTS = """---
title: ハロウィンイベント
tags: [イベント]
---
# ハロウィンイベント

ハロウィンイベントのページです。

## 仮装コンテスト

10 月 31 日まで、ハロウィンの仮装をしたアイコンを投稿してください。
投票で上位 3 名に限定ロールを贈ります。
投稿は `#ハロウィン` チャンネルで受け付けます。締め切りを過ぎた投稿は対象外です。
"""

LEVELS = """---
title: レベルと経験値
tags: [レベル, XP]
---
# レベルと経験値

発言するとたまる経験値（XP）とレベルの仕組みです。

## 経験値のたまり方

テキストチャンネルで発言すると、1 分に 1 回まで 15〜25 XP がもらえます。
ボイスチャンネルにいると 10 分ごとに 10 XP たまります（ミュート中や AFK 中はたまりません）。
コマンドや連投では経験値はもらえません。

## 自分のレベルを確認する

`/rank` と入力すると、自分のレベルと次のレベルまでの経験値が表示されます。
"""


async def _index(
    kb: Path, sessions: async_sessionmaker[AsyncSession], clock: ManualClock, **files: str
) -> KnowledgeIndex:
    index = KnowledgeIndex(write_files(kb, **files), sessions, clock)
    await index.load()
    return index


def test_question_words_and_hedges_are_not_search_terms() -> None:
    assert search_terms("途中参加しても大丈夫？どうすればいい？") == ["途中", "参加"]
    assert search_terms("いつ何をするの？") == []


def test_acronym_plurals_and_contractions_fold_to_the_word() -> None:
    assert search_terms("someone keeps sending DMs") == ["keep", "send", "dm"]
    assert search_terms("my mic isn't working") == ["mic", "work"]
    assert search_terms("I can't hear") == ["hear"]


def test_a_question_word_only_hints_at_the_kind_of_section() -> None:
    vocabulary = Vocabulary([("日時", "日程", "いつ", "when")])

    plan = plan_query("ゲーム大会はいつ？", vocabulary, lambda term: 1)

    assert [("日時", SYNONYM_WEIGHT), ("日程", SYNONYM_WEIGHT)] in plan.words


def test_a_phrase_of_several_words_counts_for_its_group_more_than_for_each_word() -> None:
    vocabulary = Vocabulary([("プッシュトゥトーク", "push to talk")])

    plan = plan_query("how do I turn on push to talk", vocabulary, lambda term: 1)

    concept = next(c for c in plan.words if ("talk", SYNONYM_WEIGHT) in c)
    assert ("push", SYNONYM_WEIGHT) in concept
    assert any(weight == 1.0 and not term.isascii() for term, weight in concept)


async def test_a_shared_hedge_in_faq_headings_does_not_pick_the_section(
    tmp_path: Path, sessions: async_sessionmaker[AsyncSession], clock: ManualClock
) -> None:
    index = await _index(tmp_path / "kb", sessions, clock, faq=FAQ)

    hits = index.search("寝落ちって大丈夫？", 2)

    assert [hit.heading for hit in hits] == ["よくある質問 > 寝落ちしても大丈夫？"]


async def test_an_intro_still_answers_when_nothing_else_matches(
    tmp_path: Path, sessions: async_sessionmaker[AsyncSession], clock: ManualClock
) -> None:
    index = await _index(tmp_path / "kb", sessions, clock, levels=LEVELS)

    assert index.search("仕組みを知りたい", 1)[0].heading == "レベルと経験値"


async def test_hits_keep_carrying_the_file_path_to_cite(
    tmp_path: Path, sessions: async_sessionmaker[AsyncSession], clock: ManualClock
) -> None:
    index = await _index(tmp_path / "knowledge_base", sessions, clock, events=EVENTS)

    hit = index.search("halloween costume contest", 1)[0]

    assert (hit.path, hit.source) == ("events.md", "knowledge_base/events.md")
