"""The server notebook: write, read, list, search and delete a server's shared notes."""

from __future__ import annotations

import contextlib
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Mapping
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.members.permissions import Person
from bot.notes.display import NoteError, NoteHit, NotePage, NoteView
from bot.notes.search import note_terms, rank_notes
from bot.notes.table import NOTE_TITLE_CHARS, Note
from bot.runtime.clock import Clock
from bot.runtime.worker import in_worker
from bot.storage.engine import write_sessions
from bot.text.clip import clip

# (id, title and body, terms) per note.
Candidate = tuple[int, str, Mapping[str, float]]
# Count, highest id and latest edit: any write, edit or delete in any process changes one.
Signature = tuple[int, int | None, datetime | None]
# Servers whose notes stay in memory; the least recently searched one is dropped first.
CACHED_SERVERS = 64


class CandidateCache:
    """Keeps each server's notes between searches, since every mention searches them.

    Whether a server's notebook changed is asked of the database at most once per
    `fresh_seconds` (a note written in this process is seen at once: see forget)."""

    def __init__(
        self,
        servers: int = CACHED_SERVERS,
        *,
        fresh_seconds: float = 0.0,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self._servers = servers
        self._fresh_seconds = fresh_seconds
        self._now = now
        # Per server: its signature, its notes and when the signature was last asked for.
        self._entries: OrderedDict[int, tuple[Signature, list[Candidate], float]] = OrderedDict()

    def forget(self, guild_id: int) -> None:
        """The server's notebook changed here: ask the database at the next search."""
        self._entries.pop(guild_id, None)

    async def candidates(self, session: AsyncSession, guild_id: int) -> list[Candidate]:
        """The server's notes, from memory when the notebook did not change since last time."""
        cached = self._entries.get(guild_id)
        now = self._now()
        if cached is not None and now - cached[2] < self._fresh_seconds:
            self._entries.move_to_end(guild_id)
            return cached[1]
        count, highest, latest = (
            await session.execute(
                select(func.count(), func.max(Note.id), func.max(Note.updated_at)).where(
                    Note.guild_id == guild_id
                )
            )
        ).one()
        signature: Signature = (count, highest, latest)
        if cached is not None and cached[0] == signature:
            self._entries[guild_id] = (signature, cached[1], now)
            self._entries.move_to_end(guild_id)
            return cached[1]
        # Plain columns, not ORM objects: building 1,000 entities would hold the event loop.
        rows = await session.execute(
            select(Note.id, Note.title, Note.body, Note.terms).where(Note.guild_id == guild_id)
        )
        found: list[Candidate] = [(i, f"{title}\n{body}", terms) for i, title, body, terms in rows]
        self._entries[guild_id] = (signature, found, now)
        self._entries.move_to_end(guild_id)
        while len(self._entries) > self._servers:
            self._entries.popitem(last=False)
        return found


# A note is something to glance at: it fits one Discord message with its header.
NOTE_MAX_CHARS = 1500
NOTE_TITLE_MAX = 60
MAX_NOTES_PER_SERVER = 1000
LIST_PAGE_SIZE = 10


def default_title(text: str) -> str:
    """A title from the note's first line when the writer gave none."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return clip(first, NOTE_TITLE_MAX)


def _clean(text: str, title: str | None) -> tuple[str, str]:
    body = text.strip()
    if not body:
        raise NoteError("The note is empty: give the text to note down.")
    if len(body) > NOTE_MAX_CHARS:
        raise NoteError(
            f"The note is {len(body)} characters long; a note holds at most {NOTE_MAX_CHARS}. "
            "Shorten it or split it into several notes (longer texts belong in the knowledge "
            "base, which admins edit with /kb)."
        )
    name = " ".join((title or "").split()) or default_title(body)
    if len(name) > NOTE_TITLE_MAX:
        raise NoteError(f"The title is {len(name)} characters; use at most {NOTE_TITLE_MAX}.")
    return name[:NOTE_TITLE_CHARS], body


class Notebook:
    """Per-server notes in the database; terms are computed once, when a note is written."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        *,
        fresh_seconds: float = 0.0,
    ) -> None:
        self._sessions = sessions
        # It reads before it writes: on SQLite the write lock is taken at BEGIN, or the
        # upgrade from reading would fail at once while another writer holds the lock.
        self._writes = write_sessions(sessions)
        self._clock = clock
        # fresh_seconds: how long a note written by another process may stay unseen.
        self._candidates = CandidateCache(
            fresh_seconds=fresh_seconds, now=lambda: clock.now().timestamp()
        )

    async def write(
        self,
        guild_id: int,
        channel_id: int,
        author: Person,
        text: str,
        title: str | None = None,
    ) -> NoteView:
        """Add a note to the server's notebook."""
        name, body = _clean(text, title)
        terms = await in_worker(note_terms, name, body)
        now = self._clock.now()
        async with self._writing(guild_id) as session:
            count = await session.scalar(
                select(func.count()).select_from(Note).where(Note.guild_id == guild_id)
            )
            if (count or 0) >= MAX_NOTES_PER_SERVER:
                raise NoteError(
                    f"This server's notebook is full ({MAX_NOTES_PER_SERVER} notes). Ask an "
                    "admin to delete old notes with /notes delete."
                )
            row = Note(
                guild_id=guild_id,
                channel_id=channel_id,
                title=name,
                body=body,
                terms=terms,
                author_id=author.user_id,
                author_name=author.user_name[:100],
                created_at=now,
                updated_at=now,
                updated_by_name=None,
            )
            session.add(row)
            await session.flush()
            return NoteView.of(row)

    async def rewrite(
        self,
        guild_id: int,
        note_id: int,
        editor: Person,
        text: str,
        title: str | None = None,
    ) -> NoteView:
        """Replace a note's text (and title); only its author or an admin may."""
        async with self._sessions() as session:
            row = await self._row(session, guild_id, note_id)
            _check_owner(row, editor, "edit")
            name, body = _clean(text, title or row.title)
        terms = await in_worker(note_terms, name, body)
        async with self._writing(guild_id) as session:
            row = await self._row(session, guild_id, note_id)
            row.title, row.body, row.terms = name, body, terms
            row.updated_at = self._clock.now()
            row.updated_by_name = editor.user_name[:100]
            await session.flush()
            return NoteView.of(row)

    @contextlib.asynccontextmanager
    async def _writing(self, guild_id: int) -> AsyncIterator[AsyncSession]:
        """A transaction that changes the server's notes; its next search sees the change."""
        try:
            async with self._writes() as session, session.begin():
                yield session
        finally:
            self._candidates.forget(guild_id)

    async def get(self, guild_id: int, note_id: int) -> NoteView:
        """One note of this server, or a NoteError naming the way to find the right id."""
        async with self._sessions() as session:
            return NoteView.of(await self._row(session, guild_id, note_id))

    async def page(self, guild_id: int, page: int = 1, size: int = LIST_PAGE_SIZE) -> NotePage:
        """A page of the server's notes, newest first (the last page when page is too high)."""
        async with self._sessions() as session:
            total = (
                await session.scalar(
                    select(func.count()).select_from(Note).where(Note.guild_id == guild_id)
                )
                or 0
            )
            pages = max(1, -(-total // size))
            page = min(max(1, page), pages)
            rows = (
                await session.scalars(
                    select(Note)
                    .where(Note.guild_id == guild_id)
                    .order_by(Note.id.desc())
                    .offset((page - 1) * size)
                    .limit(size)
                )
            ).all()
        return NotePage([NoteView.of(r) for r in rows], total, page, pages)

    async def search(self, guild_id: int, query: str, limit: int = 5) -> list[NoteHit]:
        """The server's notes that best match a question, best first."""
        async with self._sessions() as session:
            candidates = await self._candidates.candidates(session, guild_id)
        if not candidates:
            return []
        ranked = await in_worker(rank_notes, query, candidates, limit)
        if not ranked:
            return []
        async with self._sessions() as session:
            rows = await session.scalars(
                select(Note).where(Note.id.in_([r.note_id for r in ranked]))
            )
            by_id = {row.id: NoteView.of(row) for row in rows}
        return [
            NoteHit(by_id[r.note_id], r.relevance, r.snippet) for r in ranked if r.note_id in by_id
        ]

    async def cited_matches(
        self, guild_id: int, query: str, limit: int, tz: ZoneInfo
    ) -> list[dict[str, Any]]:
        """Matching notes as search_knowledge returns them beside the files."""
        return [
            {
                "note": f"#{hit.note.id}",
                "title": hit.note.title,
                "author": hit.note.author_name,
                "written": hit.note.created_at.astimezone(tz).strftime("%Y-%m-%d"),
                "relevance": round(hit.relevance, 2),
                "snippet": hit.snippet,
            }
            for hit in await self.search(guild_id, query, limit)
        ]

    async def delete(self, guild_id: int, note_id: int, by: Person) -> NoteView:
        """Delete a note; only its author or an admin may."""
        async with self._writing(guild_id) as session:
            row = await self._row(session, guild_id, note_id)
            _check_owner(row, by, "delete")
            view = NoteView.of(row)
            await session.execute(delete(Note).where(Note.id == note_id))
            return view

    async def _row(self, session: AsyncSession, guild_id: int, note_id: int) -> Note:
        row = await session.get(Note, note_id)
        if row is None or row.guild_id != guild_id:
            raise NoteError(
                f"There is no note #{note_id} in this server's notebook: list the notes to "
                "find its number."
            )
        return row


def _check_owner(row: Note, who: Person, action: str) -> None:
    if row.author_id != who.user_id and not who.is_admin:
        raise NoteError(
            f"Note #{row.id} was written by {row.author_name}; only they or an admin may "
            f"{action} it."
        )
