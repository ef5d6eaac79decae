"""Knowledge per server: the shared base plus a server's own folder, never another server's."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.knowledge.editor import KnowledgeEditError, KnowledgeEditor
from bot.knowledge.index import KnowledgeIndex
from bot.knowledge.places import Place, place_of
from bot.members.permissions import Person
from bot.runtime.clock import ManualClock
from bot.servers import ServerScope
from bot.settings import Settings

ONE, TWO = ServerScope.of(111), ServerScope.of(222)
ADMIN_ONE = Person(user_id=1, user_name="one-admin")
OWNER = Person(user_id=9, user_name="owner", bot_owner=True)
MOCHI = "# 餅つき大会\n\n餅つき大会は毎年十二月の第二土曜日に公園で開きます。\n"
OWN_FAQ = (
    "# よくある質問\n\n## サーバーへの参加方法\n\nこのサーバーには申請フォームから参加します。\n"
)


@pytest.fixture
def editor(
    index: KnowledgeIndex,
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    clock: ManualClock,
) -> KnowledgeEditor:
    return KnowledgeEditor.from_settings(index, settings, sessions, clock)


def _sources(index: KnowledgeIndex, question: str, scope: ServerScope) -> list[str]:
    return [hit.source for hit in index.search(question, 5, scope=scope)]


@pytest.mark.parametrize(
    ("path", "place"),
    [
        ("faq.md", Place(None, "faq.md")),
        ("guides/boost.md", Place(None, "guides/boost.md")),
        ("servers/123/faq.md", Place(123, "faq.md")),
        ("servers/123/web_search/x.md", Place(123, "web_search/x.md")),
        ("servers.md", Place(None, "servers.md")),
        ("servers/readme.md", None),
        ("servers/abc/faq.md", None),
        ("servers/0123/faq.md", None),
    ],
)
def test_a_path_belongs_to_the_shared_base_a_server_or_no_one(
    path: str, place: Place | None
) -> None:
    assert place_of(path) == place


async def test_a_servers_file_is_found_in_that_server_only(
    editor: KnowledgeEditor, index: KnowledgeIndex
) -> None:
    await editor.create("events/mochi.md", MOCHI, ADMIN_ONE, scope=ONE)

    assert _sources(index, "餅つき大会はいつ？", ONE)[0] == (
        "knowledge_base/servers/111/events/mochi.md"
    )
    assert not [s for s in _sources(index, "餅つき大会はいつ？", TWO) if "mochi" in s]
    assert not [s for s in _sources(index, "餅つき大会はいつ？", ServerScope.DM) if "mochi" in s]
    # The shared files are still found in the server.
    assert "knowledge_base/rules.md" in _sources(index, "サーバーのルール 禁止事項", ONE)


async def test_a_servers_file_overrides_the_shared_file_of_the_same_path_there_only(
    editor: KnowledgeEditor, index: KnowledgeIndex
) -> None:
    await editor.create("faq.md", OWN_FAQ, ADMIN_ONE, scope=ONE)

    here = _sources(index, "サーバーへの参加方法", ONE)
    there = _sources(index, "サーバーへの参加方法", TWO)

    assert here[0] == "knowledge_base/servers/111/faq.md"
    assert "knowledge_base/faq.md" not in here
    assert there[0] == "knowledge_base/faq.md"
    assert (await editor.read("faq.md", scope=ONE)).text == OWN_FAQ
    assert (await editor.read("faq.md", scope=TWO)).shared
    assert "knowledge_base/faq.md" not in index.visible_paths(ONE)


async def test_deleting_a_servers_file_leaves_the_shared_and_other_servers_alone(
    editor: KnowledgeEditor, index: KnowledgeIndex, kb_dir: Path
) -> None:
    await editor.create("faq.md", OWN_FAQ, ADMIN_ONE, scope=ONE)
    await editor.create("faq.md", OWN_FAQ, Person(2, "two-admin"), scope=TWO)

    await editor.delete("faq.md", ADMIN_ONE, scope=ONE)

    assert (kb_dir / "faq.md").exists() and (kb_dir / "servers/222/faq.md").exists()
    assert _sources(index, "サーバーへの参加方法", ONE)[0] == "knowledge_base/faq.md"
    assert _sources(index, "サーバーへの参加方法", TWO)[0] == "knowledge_base/servers/222/faq.md"


async def test_a_server_admin_cannot_change_or_delete_a_shared_file(
    editor: KnowledgeEditor, kb_dir: Path
) -> None:
    before = (kb_dir / "faq.md").read_text("utf-8")

    with pytest.raises(KnowledgeEditError, match="shared file"):
        await editor.replace("faq.md", "# 乗っ取り\n", ADMIN_ONE, scope=ONE)
    with pytest.raises(KnowledgeEditError, match="shared file"):
        await editor.delete("faq.md", ADMIN_ONE, scope=ONE)
    with pytest.raises(KnowledgeEditError, match="bot's owners"):
        await editor.create("new.md", "# 共通\n", ADMIN_ONE, scope=ONE, shared=True)

    assert (kb_dir / "faq.md").read_text("utf-8") == before
    assert not (kb_dir / "new.md").exists()


async def test_the_bots_owner_edits_the_shared_base_from_a_server(
    editor: KnowledgeEditor, index: KnowledgeIndex, kb_dir: Path
) -> None:
    await editor.create("mochi.md", MOCHI, OWNER, scope=ONE, shared=True)

    assert (kb_dir / "mochi.md").exists()
    assert _sources(index, "餅つき大会はいつ？", TWO)[0] == "knowledge_base/mochi.md"


@pytest.mark.parametrize("path", ["servers/222/faq.md", "knowledge_base/servers/222/x.md"])
async def test_another_servers_folder_cannot_be_named(editor: KnowledgeEditor, path: str) -> None:
    with pytest.raises(KnowledgeEditError, match="servers/"):
        await editor.create(path, "# x\n", ADMIN_ONE, scope=ONE)
    with pytest.raises(KnowledgeEditError, match="servers/"):
        await editor.read(path, scope=ONE)


async def test_lists_and_histories_show_the_shared_files_and_the_servers_own_only(
    editor: KnowledgeEditor,
) -> None:
    await editor.create("mochi.md", MOCHI, ADMIN_ONE, scope=ONE)
    await editor.create(
        "secret.md", "# ひみつ\n\n二番目のサーバーの話\n", Person(2, "b"), scope=TWO
    )

    listed = {f.path: f.shared for f in await editor.list_files(scope=ONE)}
    changes = [(c.path, c.guild_id) for c in await editor.history(scope=ONE)]

    assert listed["mochi.md"] is False and listed["faq.md"] is True
    assert "secret.md" not in listed and not [p for p in listed if p.startswith("servers/")]
    assert changes == [("mochi.md", 111)]
    assert [c.path for c in await editor.history(scope=ServerScope.DM)] == []


async def test_files_under_servers_never_pass_for_shared_knowledge(
    index: KnowledgeIndex, kb_dir: Path
) -> None:
    (kb_dir / "servers").mkdir()
    (kb_dir / "servers" / "stray.md").write_text(MOCHI, "utf-8")
    (kb_dir / "servers" / "333").mkdir()
    (kb_dir / "servers" / "333" / "mochi.md").write_text(MOCHI, "utf-8")

    await index.refresh()

    assert not [s for s in _sources(index, "餅つき大会", ServerScope.DM) if "mochi" in s]
    assert not [s for s in _sources(index, "餅つき大会", ONE) if "servers" in s]
    assert _sources(index, "餅つき大会", ServerScope.of(333))[0] == (
        "knowledge_base/servers/333/mochi.md"
    )
    assert "servers/stray.md" not in index.paths()
