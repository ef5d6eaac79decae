"""Admin editing: safe paths, size cap, atomic writes, history, and the index kept in step."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.knowledge import files
from bot.knowledge.changes import ChangeAction
from bot.knowledge.editor import KnowledgeEditError, KnowledgeEditor
from bot.knowledge.index import KnowledgeIndex
from bot.members.permissions import Person
from bot.runtime.clock import ManualClock
from bot.settings import Settings

# Without a server (the DM scope) the editor edits the shared base: the bot's owners' files.
ADMIN = Person(user_id=42, user_name="kanrisha", bot_owner=True)


def _hidden_files(folder: Path) -> list[str]:
    """Names of dot-files, where an interrupted atomic write would leave its temp file."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


@pytest.fixture
def editor(
    index: KnowledgeIndex,
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
) -> KnowledgeEditor:
    return KnowledgeEditor.from_settings(index, settings, sessions, clock)


@pytest.mark.parametrize(
    ("path", "complaint"),
    [
        ("../x.md", "`..`"),
        ("guides/../../x.md", "`..`"),
        ("/etc/x.md", "absolute path"),
        ("~/x.md", "absolute path"),
        ("notes.txt", "must end in `.md`"),
        ("faq.md.bak", "must end in `.md`"),
        (".hidden.md", "Hidden files"),
        ("C:\\kb\\x.md", "cannot have"),
        ("", "Give a file path"),
    ],
)
async def test_paths_outside_the_knowledge_base_or_not_markdown_are_refused(
    editor: KnowledgeEditor, kb_dir: Path, path: str, complaint: str
) -> None:
    with pytest.raises(KnowledgeEditError, match=complaint.replace("(", r"\(")):
        await editor.create(path, "# x\n", ADMIN)
    assert not (kb_dir.parent / "x.md").exists()


async def test_a_folder_linked_to_outside_cannot_be_written_through(
    editor: KnowledgeEditor, kb_dir: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (kb_dir / "escape").symlink_to(outside, target_is_directory=True)

    with pytest.raises(KnowledgeEditError, match="outside the knowledge base"):
        await editor.create("escape/x.md", "# x\n", ADMIN)
    assert list(outside.iterdir()) == []


async def test_text_over_the_size_cap_is_refused(editor: KnowledgeEditor, kb_dir: Path) -> None:
    with pytest.raises(KnowledgeEditError, match=r"at most 2,000 .*KB_MAX_FILE_BYTES"):
        await editor.create("big.md", "あ" * 1000, ADMIN)  # 3,000 bytes in UTF-8
    assert not (kb_dir / "big.md").exists()


async def test_create_writes_the_file_logs_it_and_makes_it_searchable(
    editor: KnowledgeEditor, index: KnowledgeIndex, kb_dir: Path
) -> None:
    entry = await editor.create(
        "knowledge_base/guides/boost.md", "# ブースト\n\n特典は特別ロールです。", ADMIN
    )

    assert entry.path == "guides/boost.md" and entry.action is ChangeAction.CREATE
    assert (
        entry.size_before is None
        and entry.size_after == (kb_dir / "guides/boost.md").stat().st_size
    )
    assert (kb_dir / "guides/boost.md").read_text("utf-8").endswith("特典は特別ロールです。\n")
    assert index.search("ブーストの特典は？", 1)[0].path == "guides/boost.md"


async def test_create_refuses_to_overwrite_and_replace_refuses_a_missing_file(
    editor: KnowledgeEditor,
) -> None:
    with pytest.raises(KnowledgeEditError, match="already exists: edit it with /kb edit"):
        await editor.create("faq.md", "# new\n", ADMIN)
    with pytest.raises(KnowledgeEditError, match="create it with /kb new"):
        await editor.replace("nothing.md", "# new\n", ADMIN)


async def test_an_edit_reaches_the_index_at_once(
    editor: KnowledgeEditor, index: KnowledgeIndex
) -> None:
    await editor.replace(
        "rules.md", "# サーバールール\n\n## 飲食\n\n通話中の飲食は自由です。\n", ADMIN
    )

    assert index.search("通話中に飲食してもいい？", 1)[0].path == "rules.md"
    assert all(hit.path != "rules.md" for hit in index.search("スパム 宣伝", 5))


async def test_replace_with_a_stale_hash_is_refused(editor: KnowledgeEditor, kb_dir: Path) -> None:
    opened = await editor.read("faq.md")
    (kb_dir / "faq.md").write_text("# 誰かの編集\n\n先に保存\n", "utf-8")

    with pytest.raises(KnowledgeEditError, match="changed by someone else"):
        await editor.replace("faq.md", "# 私の編集\n", ADMIN, expected_hash=opened.content_hash)
    assert "誰かの編集" in (kb_dir / "faq.md").read_text("utf-8")


async def test_writes_are_atomic_and_leave_no_temp_files(
    editor: KnowledgeEditor, kb_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = (kb_dir / "faq.md").read_bytes()

    def crash(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(files.os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        await editor.replace("faq.md", "# 半分だけ\n", ADMIN)
    monkeypatch.undo()

    assert (kb_dir / "faq.md").read_bytes() == original
    assert _hidden_files(kb_dir) == []
    await editor.replace("faq.md", "# 全部\n\n新しい本文\n", ADMIN)
    assert (kb_dir / "faq.md").read_text("utf-8") == "# 全部\n\n新しい本文\n"
    assert _hidden_files(kb_dir) == []


async def test_a_replaced_file_keeps_its_permissions(editor: KnowledgeEditor, kb_dir: Path) -> None:
    os.chmod(kb_dir / "faq.md", 0o640)

    await editor.replace("faq.md", "# 権限\n\nそのまま\n", ADMIN)

    assert (kb_dir / "faq.md").stat().st_mode & 0o777 == 0o640


async def test_delete_removes_the_file_and_its_sections(
    editor: KnowledgeEditor, index: KnowledgeIndex, kb_dir: Path
) -> None:
    entry = await editor.delete("moderation.md", ADMIN)

    assert entry.action is ChangeAction.DELETE and entry.size_after is None
    assert not (kb_dir / "moderation.md").exists()
    assert "moderation.md" not in index.paths()
    with pytest.raises(KnowledgeEditError, match="/kb list shows the files"):
        await editor.delete("moderation.md", ADMIN)


async def test_history_lists_who_changed_what_newest_first(
    editor: KnowledgeEditor, clock: ManualClock
) -> None:
    someone = Person(user_id=7, user_name="moderator", bot_owner=True)
    await editor.create("new.md", "# 新規\n\n本文\n", ADMIN)
    clock.advance(timedelta(minutes=5))
    await editor.replace("new.md", "# 新規\n\n長くなった本文です\n", someone)
    clock.advance(timedelta(minutes=5))
    await editor.delete("events.md", ADMIN)

    all_changes = await editor.history()
    of_new = await editor.history("knowledge_base/new.md")

    assert [(c.path, c.action) for c in all_changes] == [
        ("events.md", ChangeAction.DELETE),
        ("new.md", ChangeAction.REPLACE),
        ("new.md", ChangeAction.CREATE),
    ]
    assert [c.user_name for c in of_new] == ["moderator", "kanrisha"]
    replace = of_new[0]
    assert replace.size_before == len("# 新規\n\n本文\n".encode())
    assert replace.size_after == len("# 新規\n\n長くなった本文です\n".encode())
    assert replace.changed_at == clock.now() - timedelta(minutes=5)


async def test_list_and_read_show_files_with_titles(editor: KnowledgeEditor) -> None:
    listed = await editor.list_files()
    guides = await editor.list_files("guides")
    content = await editor.read("faq.md")

    assert [f.path for f in listed][:2] == ["events.md", "faq.md"]
    assert {f.path: f.title for f in listed}["moderation.md"] == "Moderation guide"
    assert [f.source for f in guides] == ["knowledge_base/guides/getting-started.md"]
    assert content.text.startswith("---\ntitle: よくある質問")
    assert content.size == len(content.text.encode())
    with pytest.raises(KnowledgeEditError, match=r"There is no `none\.md`"):
        await editor.read("none.md")


async def test_reload_picks_up_files_changed_outside_the_bot(
    editor: KnowledgeEditor, kb_dir: Path
) -> None:
    (kb_dir / "extra.md").write_text("# 追加\n\n外で書いた\n", "utf-8")

    report = await editor.reload()

    assert report.added == ["extra.md"]
    assert "1 files added" in report.summary()


@pytest.mark.parametrize("path", ["../x.md", "/etc/x.md", "notes.txt", "faq.md"])
async def test_refusals_are_one_sentence_in_japanese_and_one_in_english(
    editor: KnowledgeEditor, path: str
) -> None:
    with pytest.raises(KnowledgeEditError) as refused:
        await editor.create(path, "# x\n", ADMIN)

    japanese, english = refused.value.said("ja"), refused.value.said("en")
    assert not japanese.isascii() and japanese.endswith("。") and "/ " not in japanese
    assert english.isascii() and english.endswith(".")
    assert str(refused.value) == english  # what logs read


async def test_check_new_names_the_file_or_refuses_before_any_text_is_typed(
    editor: KnowledgeEditor,
) -> None:
    assert await editor.check_new("knowledge_base/guides/boost.md") == "guides/boost.md"
    with pytest.raises(KnowledgeEditError, match="already exists"):
        await editor.check_new("faq.md")
    with pytest.raises(KnowledgeEditError, match=r"`\.\.`"):
        await editor.check_new("../x.md")


def test_an_upload_must_be_utf8_text_under_the_cap(editor: KnowledgeEditor) -> None:
    assert editor.text_of_upload("\ufeff# 見出し\n".encode()) == "# 見出し\n"
    with pytest.raises(KnowledgeEditError, match="not UTF-8 text"):
        editor.text_of_upload("# 見出し\n".encode("shift_jis"))
    with pytest.raises(KnowledgeEditError, match="not UTF-8 text"):
        editor.text_of_upload(b"\x89PNG\r\n\x1a\n\x00\x00")
    with pytest.raises(KnowledgeEditError, match=r"at most 2,000"):
        editor.text_of_upload(b"#" * 2001)


async def test_delete_refuses_a_file_changed_since_the_confirmation(
    editor: KnowledgeEditor, kb_dir: Path
) -> None:
    asked = await editor.read("events.md")
    (kb_dir / "events.md").write_text("# 新しいイベント\n", "utf-8")

    with pytest.raises(KnowledgeEditError, match="changed after you were asked"):
        await editor.delete("events.md", ADMIN, expected_hash=asked.content_hash)
    assert (kb_dir / "events.md").exists()
