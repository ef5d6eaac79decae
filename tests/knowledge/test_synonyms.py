"""The ja/en vocabulary: slang, loanwords and English meet the words the files use."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.knowledge.index import KnowledgeIndex
from bot.runtime.clock import ManualClock
from bot.search.synonyms import Vocabulary, builtin_vocabulary
from bot.search.terms import search_terms
from bot.search.vocabulary import builtin_groups, parse_vocabulary
from tests.knowledge.conftest import write_files

GUIDE = """---
title: サーバーガイド
---
# サーバーガイド

## 参加のしかた

サーバーに参加したら、ルールを読んでください。

## スクリーンショット

スクリーンショットを貼るときは、他の人の名前を隠してください。

## ハロウィン

10 月は仮装アイコンコンテストをします。

## 配信

ボイスチャンネルで画面共有を使ってゲームを配信できます。

## 初心者歓迎

ゲームが下手でも大丈夫です。

## 通知

通知音がうるさいときはチャンネルをミュートしてください。
"""


def _delete(path: Path) -> None:
    path.unlink()


async def _guide_index(
    kb: Path, sessions: async_sessionmaker[AsyncSession], clock: ManualClock
) -> KnowledgeIndex:
    index = KnowledgeIndex(write_files(kb, guide=GUIDE), sessions, clock)
    await index.load()
    return index


def test_a_vocabulary_file_holds_one_group_per_list_line() -> None:
    text = "# 言い換え\n\nprose is ignored\n\n- 鯖, サーバー, server\n* 垢、アカウント\n- alone\n"

    assert parse_vocabulary(text) == [("鯖", "サーバー", "server"), ("垢", "アカウント")]


def test_the_shipped_vocabulary_bridges_slang_loanwords_and_english() -> None:
    vocabulary = builtin_vocabulary()

    assert len(builtin_groups()) >= 150
    assert set(search_terms("サーバー")) <= vocabulary.synonyms_of("鯖")
    assert "参加" in vocabulary.synonyms_of("入る")
    assert "join" in vocabulary.synonyms_of("入る")
    assert set(search_terms("ハロウィン")) <= vocabulary.synonyms_of("halloween")
    assert "絵文字" in vocabulary.synonyms_of("emoji")
    assert "配信" in vocabulary.synonyms_of("stream")


def test_the_shipped_vocabulary_knows_how_members_ask_about_a_servers_pages() -> None:
    vocabulary = builtin_vocabulary()

    assert "宣伝" in vocabulary.synonyms_of(search_terms("promote")[0])
    assert "宣伝" in vocabulary.synonyms_of(search_terms("promoting")[0])
    assert "休憩" in vocabulary.synonyms_of("break")
    assert "飾り" in vocabulary.synonyms_of(search_terms("decorate")[0])
    for question, word in [
        ("how do I bring a friend here", "招待"),
        ("how do I draw a fortune", "初詣"),
        ("my message disappeared on its own", "automod"),
        ("can I just read without talking", "lurk"),
    ]:
        phrases, _ = vocabulary.find_phrases(question)
        assert any(word in " ".join(p.synonyms) for p in phrases), question


def test_slang_janome_cannot_read_is_found_by_its_written_form() -> None:
    # janome reads へたくそ as the verb たくす; the written form is matched before tokenising.
    phrases, rest = builtin_vocabulary().find_phrases("ゲームへたくそだけど")

    slang = next(p for p in phrases if p.surface == "へたくそ")
    assert "下手" in slang.synonyms
    assert "へたくそ" not in rest


def test_english_phrases_match_whole_and_in_the_plural() -> None:
    phrases, _ = builtin_vocabulary().find_phrases("Any game nights this week?")

    assert [p.surface for p in phrases] == ["game night"]


def test_a_katakana_word_is_not_found_inside_a_longer_one() -> None:
    vocabulary = Vocabulary([("ロール", "役職")])

    assert vocabulary.find_phrases("コントロールが難しい")[0] == []
    assert [p.surface for p in vocabulary.find_phrases("ロール選択")[0]] == ["ロール"]


async def test_slang_and_english_questions_find_the_japanese_section(
    tmp_path: Path, sessions: async_sessionmaker[AsyncSession], clock: ManualClock
) -> None:
    index = await _guide_index(tmp_path / "kb", sessions, clock)

    for question, heading in [
        ("鯖に入ったら何する？", "参加"),
        ("スクショ貼っていい？", "スクリーンショット"),
        ("when is the halloween contest", "ハロウィン"),
        ("can I stream games here", "配信"),
        ("ゲームへたくそなんだけど", "初心者"),
        ("ピコピコうるさい", "通知"),
    ]:
        hits = index.search(question, 1)
        assert hits, question
        assert heading in hits[0].heading, question


async def test_an_admin_vocabulary_file_extends_the_search_without_a_restart(
    tmp_path: Path, sessions: async_sessionmaker[AsyncSession], clock: ManualClock
) -> None:
    kb = tmp_path / "kb"
    index = await _guide_index(kb, sessions, clock)
    assert index.search("にゃんこ会", 1) == []

    write_files(kb, vocabulary="# 言い換え\n\n- にゃんこ会, ハロウィン\n")
    await index.refresh()

    hits = index.search("にゃんこ会", 1)
    assert hits and "ハロウィン" in hits[0].heading
    assert "vocabulary.md" not in index.paths()


async def test_an_admin_vocabulary_file_removed_leaves_the_built_in_one(
    tmp_path: Path, sessions: async_sessionmaker[AsyncSession], clock: ManualClock
) -> None:
    kb = tmp_path / "kb"
    write_files(kb, vocabulary="- にゃんこ会, ハロウィン\n")
    index = await _guide_index(kb, sessions, clock)
    assert index.search("にゃんこ会", 1)

    _delete(kb / "vocabulary.md")
    await index.refresh()

    assert index.search("にゃんこ会", 1) == []
    assert index.search("鯖に入ったら何する？", 1)[0].heading.endswith("参加のしかた")


def test_a_contraction_still_reads_as_the_phrase_it_spells() -> None:
    phrases, _ = builtin_vocabulary().find_phrases("my mic isn't picking up")

    assert "not picking up" in [p.surface for p in phrases]
