"""The sub-word field: compounds and katakana fragments meet through character bigrams."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.knowledge.index import KnowledgeIndex
from bot.runtime.clock import ManualClock
from bot.search.bigrams import bigram_counts, term_bigrams
from bot.search.bm25 import parts_of
from tests.knowledge.conftest import write_files


async def _index(
    root: Path, sessions: async_sessionmaker[AsyncSession], clock: ManualClock, **files: str
) -> KnowledgeIndex:
    index = KnowledgeIndex(write_files(root, **files), sessions, clock)
    await index.load()
    return index


def test_japanese_terms_give_their_bigrams_and_english_words_none() -> None:
    assert term_bigrams("年末年始") == ["年末", "末年", "年始"]
    assert term_bigrams("年末") == ["年末"]
    assert term_bigrams("鯖") == []
    assert term_bigrams("reminder") == []
    assert bigram_counts(["年末", "年末年始"])["年末"] == 2


async def test_a_part_of_a_compound_finds_the_compound(
    tmp_path: Path, sessions: async_sessionmaker[AsyncSession], clock: ManualClock
) -> None:
    # janome keeps 夏休み and キーボード whole: only their bigrams hold 休み and ボード.
    index = await _index(
        tmp_path / "kb",
        sessions,
        clock,
        summer="# 夏の予定\n\n夏休みは 8 月に通話会をします。\n",
        gear="# 機材\n\nキーボードの話は機材チャンネルで。\n",
        weekly="# 毎週の予定\n\n金曜はゲームの日です。\n",
    )

    assert index.search("休みっていつ？", 1)[0].path == "summer.md"
    assert index.search("おすすめのボード", 1)[0].path == "gear.md"
    assert all(hit.path != "weekly.md" for hit in index.search("休み", 5))


async def test_a_compound_finds_the_words_it_is_made_of(
    tmp_path: Path, sessions: async_sessionmaker[AsyncSession], clock: ManualClock
) -> None:
    index = await _index(
        tmp_path / "kb",
        sessions,
        clock,
        rest="# 休みの日\n\n休みの日は運営の返事が遅れます。\n",
        weekly="# 毎週の予定\n\n金曜はゲームの日です。\n",
    )

    assert index.search("夏休み", 1)[0].path == "rest.md"


def test_nouns_are_split_into_the_words_the_files_use_but_verbs_are_not() -> None:
    used = {"年末", "年始", "休み", "取る"}.__contains__

    assert parts_of("年末年始", used) == {"年末", "年始"}
    assert parts_of("夏休み", used) == {"休み"}
    assert parts_of("乗っ取る", used) == set()


async def test_a_katakana_fragment_finds_the_longer_word(
    tmp_path: Path, sessions: async_sessionmaker[AsyncSession], clock: ManualClock
) -> None:
    index = await _index(
        tmp_path / "kb",
        sessions,
        clock,
        gear="# 機材\n\n## 入力\n\nキーボードとマウスの話です。\n",
        voice="# 通話\n\n## マナー\n\n通話では雑音に気をつけてください。\n",
    )

    assert index.search("ボードどれがいい", 1)[0].path == "gear.md"


async def test_one_shared_bigram_of_a_long_word_is_not_a_match(
    tmp_path: Path, sessions: async_sessionmaker[AsyncSession], clock: ManualClock
) -> None:
    # ニックネーム and フォーム share only ーむ: that says nothing about the question.
    index = await _index(
        tmp_path / "kb",
        sessions,
        clock,
        forms="# 申し込み\n\nフォームに記入してください。\n",
    )

    assert index.search("ニックネーム", 5) == []
