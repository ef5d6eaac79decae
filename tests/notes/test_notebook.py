"""The notebook service: per-server notes with author and time, ownership, search, limits."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import event

from bot.members.permissions import Person
from bot.notes import NOTE_MAX_CHARS, Notebook, NoteError
from bot.notes.notebook import LIST_PAGE_SIZE
from bot.notes.table import Note
from bot.runtime.clock import ManualClock
from bot.storage import Database, create_database
from tests.notes.conftest import CHANNEL, GUILD, HANA, OTHER_GUILD, TARO

hana = Person(HANA, "hana")
taro = Person(TARO, "taro")
admin = Person(3, "kenji", is_admin=True)


async def test_a_note_keeps_its_author_time_and_a_title_from_its_first_line(
    notebook: Notebook, clock: ManualClock
) -> None:
    note = await notebook.write(GUILD, CHANNEL, hana, "買い出しリスト\n牛乳、卵、パン")

    stored = await notebook.get(GUILD, note.id)
    assert stored.title == "買い出しリスト"
    assert stored.body == "買い出しリスト\n牛乳、卵、パン"
    assert (stored.author_id, stored.author_name) == (HANA, "hana")
    assert stored.created_at == clock.now() and stored.channel_id == CHANNEL
    assert stored.label == f"#{note.id}「買い出しリスト」"


async def test_notes_of_another_server_cannot_be_read_listed_or_found(
    notebook: Notebook,
) -> None:
    note = await notebook.write(OTHER_GUILD, CHANNEL, hana, "合言葉はうどん", "合言葉")

    with pytest.raises(NoteError, match="no note"):
        await notebook.get(GUILD, note.id)
    assert (await notebook.page(GUILD)).total == 0
    assert await notebook.search(GUILD, "合言葉") == []


async def test_empty_and_too_long_notes_are_refused_with_what_to_do(notebook: Notebook) -> None:
    with pytest.raises(NoteError, match="empty"):
        await notebook.write(GUILD, CHANNEL, hana, "   ")
    with pytest.raises(NoteError, match=f"at most {NOTE_MAX_CHARS}"):
        await notebook.write(GUILD, CHANNEL, hana, "あ" * (NOTE_MAX_CHARS + 1))


async def test_the_list_is_newest_first_in_pages(notebook: Notebook) -> None:
    for n in range(LIST_PAGE_SIZE + 2):
        await notebook.write(GUILD, CHANNEL, hana, f"note {n}")

    first = await notebook.page(GUILD)
    last = await notebook.page(GUILD, page=99)

    assert first.total == LIST_PAGE_SIZE + 2 and first.pages == 2
    assert first.notes[0].body == f"note {LIST_PAGE_SIZE + 1}"
    assert last.page == 2 and [n.body for n in last.notes] == ["note 1", "note 0"]


async def test_search_finds_notes_by_base_form_and_ranks_a_title_match_first(
    notebook: Notebook,
) -> None:
    await notebook.write(GUILD, CHANNEL, hana, "Wi-Fiのパスワードは受付で聞く", "部室のWi-Fi")
    trip = await notebook.write(
        GUILD, CHANNEL, taro, "8時に東京駅の丸の内北口に集まる", "旅行の集合"
    )
    mention = await notebook.write(GUILD, CHANNEL, hana, "旅行で集合写真を撮る", "写真")

    hits = await notebook.search(GUILD, "旅行の集合場所")

    assert [h.note.id for h in hits] == [trip.id, mention.id]
    assert "東京駅" in hits[0].snippet


async def test_search_uses_the_knowledge_base_synonyms(notebook: Notebook) -> None:
    photo = await notebook.write(GUILD, CHANNEL, hana, "画像は #gallery に貼る", "画像の置き場")

    assert [h.note.id for h in await notebook.search(GUILD, "写真はどこに貼る？")] == [photo.id]


async def test_search_ignores_notes_that_share_no_word(notebook: Notebook) -> None:
    await notebook.write(GUILD, CHANNEL, hana, "集合は8時、東京駅", "旅行の集合")

    assert await notebook.search(GUILD, "ラーメンのおすすめ") == []


async def test_only_the_author_or_an_admin_may_rewrite_or_delete(
    notebook: Notebook, clock: ManualClock
) -> None:
    note = await notebook.write(GUILD, CHANNEL, hana, "集合は8時", "集合")
    clock.advance(timedelta(hours=1))

    with pytest.raises(NoteError, match="only they or an admin"):
        await notebook.rewrite(GUILD, note.id, taro, "集合は9時")
    with pytest.raises(NoteError, match="only they or an admin"):
        await notebook.delete(GUILD, note.id, taro)
    edited = await notebook.rewrite(GUILD, note.id, admin, "集合は9時に変更")
    assert (edited.title, edited.body, edited.updated_by_name) == (
        "集合",
        "集合は9時に変更",
        "kenji",
    )
    assert edited.updated_at == clock.now() and edited.created_at < edited.updated_at
    assert [h.note.id for h in await notebook.search(GUILD, "変更")] == [note.id]

    await notebook.delete(GUILD, note.id, hana)
    with pytest.raises(NoteError):
        await notebook.get(GUILD, note.id)


async def test_a_search_sees_notes_another_process_wrote_edited_or_deleted(
    notebook: Notebook, database: Database, clock: ManualClock
) -> None:
    other = Notebook(database.sessions, clock)  # another bot process on the same database
    note = await other.write(GUILD, CHANNEL, hana, "集合は8時", "旅行の集合")
    assert [h.note.id for h in await notebook.search(GUILD, "旅行")] == [note.id]

    added = await other.write(GUILD, CHANNEL, taro, "旅行の予算は一人1万円", "予算")
    assert {h.note.id for h in await notebook.search(GUILD, "旅行")} == {note.id, added.id}
    clock.advance(timedelta(minutes=1))
    await other.rewrite(GUILD, added.id, taro, "合宿の予算は一人1万円", "予算")
    assert [h.note.id for h in await notebook.search(GUILD, "旅行")] == [note.id]
    await other.delete(GUILD, note.id, hana)
    assert await notebook.search(GUILD, "旅行") == []


async def test_a_note_is_written_while_another_process_is_writing(
    notebook: Notebook, database: Database, database_url: str, clock: ManualClock
) -> None:
    """Another process holds the write lock and commits while this write waits for it: the
    note is still written (a transaction that had read first could not write after that
    commit: SQLite's "database is locked" at once)."""
    other = create_database(database_url)
    holding, inserting = asyncio.Event(), asyncio.Event()
    loop = asyncio.get_running_loop()

    def seen(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO NOTES"):
            loop.call_soon_threadsafe(inserting.set)

    async def write_elsewhere() -> None:
        async with other.sessions() as session, session.begin():
            session.add(
                Note(
                    guild_id=GUILD,
                    channel_id=CHANNEL,
                    title="他",
                    body="他",
                    terms={},
                    author_id=TARO,
                    author_name="taro",
                    created_at=clock.now(),
                    updated_at=clock.now(),
                )
            )
            await session.flush()
            holding.set()
            # Commit once this write tries to insert, or (when it waits for the lock before
            # reading, as it should) after a second.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(inserting.wait(), 1.0)

    event.listen(database.engine.sync_engine, "before_cursor_execute", seen)
    elsewhere = asyncio.create_task(write_elsewhere())
    try:
        await holding.wait()
        note = await notebook.write(GUILD, CHANNEL, hana, "買い出し")
        await elsewhere
    finally:
        event.remove(database.engine.sync_engine, "before_cursor_execute", seen)
        await other.dispose()

    assert note.title == "買い出し"
    assert [n.title for n in (await notebook.page(GUILD)).notes] == ["買い出し", "他"]
