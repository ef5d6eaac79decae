"""The note tools as the agent runs them, and notes found beside files by search_knowledge."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bot.agent.tools import ToolContext, ToolRegistry, execute
from bot.knowledge import KnowledgeIndex, search_knowledge
from bot.members.permissions import Person
from bot.notes import NOTE_TOOLS, Notebook
from bot.runtime.clock import ManualClock
from bot.storage import Database
from tests.knowledge.conftest import KnowledgeOnly
from tests.notes.conftest import CHANNEL, GUILD, OTHER_GUILD, TARO

write_note, read_note, list_notes = NOTE_TOOLS


def test_writing_needs_approval_and_reading_does_not() -> None:
    assert [t.name for t in NOTE_TOOLS] == ["write_note", "read_note", "list_notes"]
    assert write_note.requires_approval
    assert not read_note.requires_approval and not list_notes.requires_approval


async def test_write_then_read_a_note_with_its_author_and_local_time(
    make_ctx: Callable[..., ToolContext],
) -> None:
    ctx = make_ctx()

    written = await execute(write_note, ctx, {"text": "集合は8時、東京駅", "title": "旅行の集合"})
    read = await execute(read_note, ctx, {"note_id": written.output["id"]})

    assert not written.is_error and written.output["saved"] is True
    assert read.output["title"] == "旅行の集合" and read.output["text"] == "集合は8時、東京駅"
    # 11:00 UTC is 20:00 in Tokyo.
    assert read.output["author"] == "hana" and read.output["written"] == "2026-11-29 20:00"
    assert "出典: メモ" in read.output["note"]


async def test_listing_with_search_words_finds_the_matching_notes(
    make_ctx: Callable[..., ToolContext], notebook: Notebook
) -> None:
    await notebook.write(GUILD, CHANNEL, Person(TARO, "taro"), "牛乳と卵", "買い出し")
    trip = await notebook.write(GUILD, CHANNEL, Person(TARO, "taro"), "東京駅に8時", "旅行")

    found = await execute(list_notes, make_ctx(), {"search": "旅行"})
    listed = await execute(list_notes, make_ctx(), {})

    assert [n["id"] for n in found.output["notes"]] == [trip.id]
    assert listed.output["total"] == 2 and listed.output["notes"][0]["id"] == trip.id


async def test_in_a_direct_message_the_model_is_told_notes_belong_to_a_server(
    make_ctx: Callable[..., ToolContext],
) -> None:
    outcome = await execute(list_notes, make_ctx(guild_id=None), {})

    assert outcome.is_error and "direct message" in str(outcome.output)


def test_notes_are_offered_in_a_server_only_not_in_dms_or_the_console() -> None:
    registry = ToolRegistry(NOTE_TOOLS)
    names = [t.name for t in NOTE_TOOLS]

    assert {t.name for t in registry.select(names, GUILD)} == set(names)
    assert registry.select(names, None) == []


async def test_a_note_of_another_server_is_not_readable(
    make_ctx: Callable[..., ToolContext], notebook: Notebook
) -> None:
    other = await notebook.write(OTHER_GUILD, CHANNEL, Person(TARO, "taro"), "秘密", "秘密")

    outcome = await execute(read_note, make_ctx(), {"note_id": other.id})

    assert outcome.is_error and f"no note #{other.id}" in str(outcome.output)


async def test_someone_else_cannot_overwrite_a_note_but_an_admin_can(
    make_ctx: Callable[..., ToolContext], notebook: Notebook
) -> None:
    note = await notebook.write(GUILD, CHANNEL, Person(TARO, "taro"), "8時集合", "集合")

    refused = await execute(write_note, make_ctx(), {"text": "9時集合", "note_id": note.id})
    done = await execute(
        write_note, make_ctx(is_admin=True), {"text": "9時集合", "note_id": note.id}
    )

    assert refused.is_error and "only they or an admin" in str(refused.output)
    assert not done.is_error and (await notebook.get(GUILD, note.id)).body == "9時集合"


async def test_search_knowledge_returns_matching_notes_beside_files(
    tmp_path: Path,
    make_ctx: Callable[..., ToolContext],
    notebook: Notebook,
    database: Database,
    clock: ManualClock,
) -> None:
    folder = tmp_path / "knowledge_base"
    folder.mkdir()
    (folder / "rules.md").write_text("# ルール\n\n集合時間は守りましょう。\n", encoding="utf-8")
    index = KnowledgeIndex(folder, database.sessions, clock)
    await index.load()
    note = await notebook.write(GUILD, CHANNEL, Person(TARO, "taro"), "東京駅に8時集合", "集合")
    ctx = make_ctx(deps=KnowledgeOnly(index, notebook))
    try:
        outcome = await execute(search_knowledge, ctx, {"query": "集合時間"})
    finally:
        await index.stop()

    assert [r["source"] for r in outcome.output["results"]] == ["knowledge_base/rules.md"]
    assert outcome.output["notes"][0]["note"] == f"#{note.id}"
    assert outcome.output["notes"][0]["author"] == "taro"
    assert "出典: メモ" in outcome.output["note"]
