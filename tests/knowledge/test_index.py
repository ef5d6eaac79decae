"""The index stays in step with the files: warm start from the cache, hot reload, skips."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.knowledge import analysis
from bot.knowledge import index as index_module
from bot.knowledge.analysis import DocumentAnalysis, analyse_document
from bot.knowledge.index import KnowledgeIndex
from bot.knowledge.table import KnowledgeDocument
from bot.runtime.clock import ManualClock


class CountingAnalyser:
    """analyse_document that records which files it tokenised."""

    def __init__(self) -> None:
        self.titles: list[str] = []

    def __call__(self, text: str, fallback_title: str) -> DocumentAnalysis:
        self.titles.append(fallback_title)
        return analyse_document(text, fallback_title)


def _new_index(
    kb_dir: Path, sessions: async_sessionmaker[AsyncSession], clock: ManualClock
) -> tuple[KnowledgeIndex, CountingAnalyser]:
    counter = CountingAnalyser()
    return KnowledgeIndex(kb_dir, sessions, clock, analyse=counter), counter


def _bump_mtime(path: Path) -> None:
    # Some filesystems keep mtimes to the second; make sure an edit is seen as one.
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))


async def test_a_cold_start_tokenises_every_file_once_and_caches_it(
    kb_dir: Path, sessions: async_sessionmaker[AsyncSession], clock: ManualClock
) -> None:
    index, counter = _new_index(kb_dir, sessions, clock)

    report = await index.load()

    assert sorted(counter.titles) == [
        "events",
        "faq",
        "getting-started",
        "moderation",
        "otomo",
        "rules",
    ]
    assert report.tokenised == 6 and report.from_cache == 0
    assert index.ready
    async with sessions() as session:
        cached = set(await session.scalars(select(KnowledgeDocument.path)))
    assert cached == set(index.paths())


async def test_a_warm_start_reuses_the_cache_without_tokenising(
    kb_dir: Path, sessions: async_sessionmaker[AsyncSession], clock: ManualClock
) -> None:
    first, _ = _new_index(kb_dir, sessions, clock)
    await first.load()
    (kb_dir / "events.md").write_text("# 定期イベント\n\n## 花見\n\n春に花見をします。\n", "utf-8")

    restarted, counter = _new_index(kb_dir, sessions, clock)
    report = await restarted.load()

    assert counter.titles == ["events"]  # only the file edited while the bot was down
    assert report.from_cache == 5
    assert restarted.search("花見はいつ？", 1)[0].path == "events.md"
    assert restarted.search("how do I report spam", 1)[0].path == "moderation.md"


async def test_a_new_analyser_version_re_tokenises_cached_files(
    kb_dir: Path,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first, _ = _new_index(kb_dir, sessions, clock)
    await first.load()
    monkeypatch.setattr(analysis, "ANALYZER_VERSION", analysis.ANALYZER_VERSION + 1)
    monkeypatch.setattr("bot.knowledge.cache.ANALYZER_VERSION", analysis.ANALYZER_VERSION)

    restarted, counter = _new_index(kb_dir, sessions, clock)
    await restarted.load()

    assert len(counter.titles) == 6


async def test_refresh_picks_up_an_edit_on_disk(index: KnowledgeIndex, kb_dir: Path) -> None:
    faq = kb_dir / "faq.md"
    faq.write_text("# よくある質問\n\n## 入会\n\n入会フォームに記入してください。\n", "utf-8")
    _bump_mtime(faq)

    report = await index.refresh()

    assert report.updated == ["faq.md"]
    assert index.search("入会フォーム", 1)[0].path == "faq.md"
    assert all(hit.path != "faq.md" for hit in index.search("ニックネームを変えたい", 5))


async def test_refresh_picks_up_an_added_file_in_a_new_folder(
    index: KnowledgeIndex, kb_dir: Path
) -> None:
    (kb_dir / "guides" / "voice").mkdir()
    (kb_dir / "guides" / "voice" / "music.md").write_text(
        "# 音楽ボット\n\n## 使い方\n\nボイスチャンネルで /play と入力すると音楽が流れます。\n",
        "utf-8",
    )

    report = await index.refresh()

    assert report.added == ["guides/voice/music.md"]
    hit = index.search("音楽を流したい", 1)[0]
    assert hit.source == "knowledge_base/guides/voice/music.md"


async def test_refresh_drops_a_deleted_file_from_the_index_and_the_cache(
    index: KnowledgeIndex, kb_dir: Path, sessions: async_sessionmaker[AsyncSession]
) -> None:
    (kb_dir / "moderation.md").unlink()

    report = await index.refresh()

    assert report.removed == ["moderation.md"]
    assert all(hit.path != "moderation.md" for hit in index.search("report spam", 5))
    async with sessions() as session:
        assert await session.get(KnowledgeDocument, "moderation.md") is None


async def test_refresh_without_changes_reads_nothing(
    index: KnowledgeIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*_: object) -> None:
        raise AssertionError("an unchanged directory must not be read")

    monkeypatch.setattr(index_module, "read_texts", refuse)

    report = await index.refresh()

    assert not report.changed


async def test_a_touched_but_unchanged_file_is_not_re_tokenised(
    kb_dir: Path, sessions: async_sessionmaker[AsyncSession], clock: ManualClock
) -> None:
    index, counter = _new_index(kb_dir, sessions, clock)
    await index.load()
    _bump_mtime(kb_dir / "rules.md")

    report = await index.refresh()

    assert not report.changed
    assert len(counter.titles) == 6


async def test_refresh_file_reindexes_one_file_at_once(index: KnowledgeIndex, kb_dir: Path) -> None:
    (kb_dir / "otomo.md").write_text("# お供\n\n## 占い\n\n今日の運勢を占います。\n", "utf-8")

    report = await index.refresh_file("otomo.md")

    assert report.updated == ["otomo.md"]
    assert index.search("運勢を占って", 1)[0].path == "otomo.md"


async def test_files_too_large_hidden_or_linked_from_outside_are_not_indexed(
    index: KnowledgeIndex,
    kb_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(index_module, "MAX_INDEXED_FILE_BYTES", 500)
    (kb_dir / "huge.md").write_text("# 巨大\n\n" + "あ" * 1000, "utf-8")
    (kb_dir / ".draft.md").write_text("# 下書き\n\n秘密の下書き\n", "utf-8")
    secret = tmp_path / "secret.md"
    secret.write_text("# 秘密\n\nパスワードは hunter2\n", "utf-8")
    (kb_dir / "linked.md").symlink_to(secret)

    report = await index.refresh()

    assert report.skipped == ["huge.md"]
    assert set(index.paths()).isdisjoint({"huge.md", ".draft.md", "linked.md"})
    assert index.search("hunter2 パスワード", 5) == []
    assert not (await index.refresh()).skipped  # not retried until the file changes


async def test_the_chat_persona_is_not_knowledge(index: KnowledgeIndex, kb_dir: Path) -> None:
    (kb_dir / "persona.md").write_text("# ペルソナ\n\nあなたは陽気な猫です\n", "utf-8")
    (kb_dir / "guides").mkdir(exist_ok=True)
    (kb_dir / "guides" / "persona.md").write_text("# 役割\n\n司会の役割について\n", "utf-8")

    await index.refresh()

    assert "persona.md" not in index.paths()
    assert "guides/persona.md" in index.paths()
    assert index.search("陽気な猫", 5) == []


async def test_a_file_that_fails_to_parse_is_left_out_and_the_rest_indexed(
    kb_dir: Path, sessions: async_sessionmaker[AsyncSession], clock: ManualClock
) -> None:
    def fragile(text: str, fallback_title: str) -> DocumentAnalysis:
        if fallback_title == "rules":
            raise ValueError("boom")
        return analyse_document(text, fallback_title)

    index = KnowledgeIndex(kb_dir, sessions, clock, analyse=fragile)
    report = await index.load()

    assert report.skipped == ["rules.md"]
    assert len(index.paths()) == 5


async def test_the_background_task_loads_then_refreshes(index: KnowledgeIndex) -> None:
    task = index.start(interval=3600)
    await index.wait_ready()

    assert not task.done()
    await index.stop()
    assert task.cancelled()
