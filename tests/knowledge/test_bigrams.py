"""The sub-word field: compounds and katakana fragments meet through character bigrams."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import ManualClock
from bot.knowledge.bigrams import bigram_counts, term_bigrams
from bot.knowledge.index import KnowledgeIndex
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


async def test_a_part_of_a_compound_finds_the_compound_and_back(
    tmp_path: Path, sessions: async_sessionmaker[AsyncSession], clock: ManualClock
) -> None:
    index = await _index(
        tmp_path / "kb",
        sessions,
        clock,
        holidays="# 年末年始\n\n年末年始はカウントダウン通話をします。\n",
        weekly="# 毎週の予定\n\n金曜はゲームの日です。\n",
        closing="# 年末の大掃除\n\n年末にチャンネルを整理します。\n",
    )

    assert "holidays.md" in {hit.path for hit in index.search("年末って何かある？", 3)}
    assert "closing.md" in {hit.path for hit in index.search("年末年始", 3)}
    assert all(hit.path != "weekly.md" for hit in index.search("年末", 5))


async def test_a_katakana_fragment_finds_the_longer_word(
    tmp_path: Path, sessions: async_sessionmaker[AsyncSession], clock: ManualClock
) -> None:
    index = await _index(
        tmp_path / "kb",
        sessions,
        clock,
        penalties="# 処分\n\n## タイムアウト\n\nタイムアウト中は発言できません。\n",
        voice="# 通話\n\n## マナー\n\n通話では雑音に気をつけてください。\n",
    )

    assert index.search("アウトになった", 1)[0].path == "penalties.md"


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
