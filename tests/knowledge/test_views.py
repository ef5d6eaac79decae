"""How files, changes and reloads are shown to admins."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from bot.knowledge.changes import ChangeAction, ChangeEntry
from bot.knowledge.display import describe_change, describe_file, describe_refresh, format_size
from bot.knowledge.editor import KnowledgeFile
from bot.knowledge.ranking import RefreshReport

WHEN = datetime(2025, 11, 30, 0, 5, tzinfo=UTC)


def _entry(action: ChangeAction, before: int | None, after: int | None) -> ChangeEntry:
    return ChangeEntry(1, "faq.md", action, 42, "kanri sha", before, after, WHEN)


def test_a_change_shows_when_in_the_readers_zone_what_who_and_the_sizes() -> None:
    line = describe_change(
        _entry(ChangeAction.REPLACE, 1234, 2048), "knowledge_base/faq.md", ZoneInfo("Asia/Tokyo")
    )

    assert line == (
        "`2025-11-30 09:05` ✏️ 編集 `knowledge_base/faq.md` — kanri sha (1,234 B → 2,048 B)"
    )
    english = describe_change(
        _entry(ChangeAction.REPLACE, 1, 2), "knowledge_base/faq.md", ZoneInfo("UTC"), "en"
    )
    assert "✏️ edited `knowledge_base/faq.md`" in english
    in_london = describe_change(
        _entry(ChangeAction.DELETE, 10, None), "knowledge_base/faq.md", ZoneInfo("Europe/London")
    )
    assert in_london.startswith("`2025-11-30 00:05` 🗑️") and in_london.endswith("(10 B → —)")


def test_a_listed_file_shows_its_path_size_and_title_when_it_adds_something() -> None:
    titled = KnowledgeFile("faq.md", "knowledge_base/faq.md", "よくある質問", 786, WHEN)
    plain = KnowledgeFile("notes.md", "knowledge_base/notes.md", "notes", 12, WHEN)

    assert describe_file(titled) == "`knowledge_base/faq.md` 786 B — よくある質問"
    assert describe_file(plain) == "`knowledge_base/notes.md` 12 B"
    assert format_size(None) == "—"


def test_a_reload_names_what_changed_in_the_admins_language() -> None:
    report = RefreshReport(added=["a.md"], removed=["b.md"], skipped=["huge.md"], seconds=0.25)

    text = describe_refresh(report)
    english = describe_refresh(report, "en")

    assert text.startswith("🔄 再読み込みしました: 追加 1、更新 0、削除 1（0.2 秒）。")
    assert "追加: `a.md`" in text and "削除: `b.md`" in text
    assert "`huge.md`" in text
    assert english.startswith("🔄 Reloaded: 1 added, 0 updated, 1 removed (0.2 s).")
    assert "Added: `a.md`" in english and "Removed: `b.md`" in english
    assert "変更はありませんでした" in describe_refresh(RefreshReport())
    assert "Nothing had changed" in describe_refresh(RefreshReport(), "en")
