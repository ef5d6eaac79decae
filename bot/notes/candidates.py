"""What a search ranks: a server's notes with their terms, read again only after a change."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.storage.notes import Note

# (id, title and body, terms) per note.
Candidate = tuple[int, str, Mapping[str, float]]
# Count, highest id and latest edit: any write, edit or delete in any process changes one.
Signature = tuple[int, int | None, datetime | None]
# Servers whose notes stay in memory; the least recently searched one is dropped first.
CACHED_SERVERS = 64


class CandidateCache:
    """Keeps each server's notes between searches, since every mention searches them."""

    def __init__(self, servers: int = CACHED_SERVERS) -> None:
        self._servers = servers
        self._entries: OrderedDict[int, tuple[Signature, list[Candidate]]] = OrderedDict()

    async def candidates(self, session: AsyncSession, guild_id: int) -> list[Candidate]:
        """The server's notes, from memory when the notebook did not change since last time."""
        count, highest, latest = (
            await session.execute(
                select(func.count(), func.max(Note.id), func.max(Note.updated_at)).where(
                    Note.guild_id == guild_id
                )
            )
        ).one()
        signature: Signature = (count, highest, latest)
        cached = self._entries.get(guild_id)
        if cached is not None and cached[0] == signature:
            self._entries.move_to_end(guild_id)
            return cached[1]
        # Plain columns, not ORM objects: building 1,000 entities would hold the event loop.
        rows = await session.execute(
            select(Note.id, Note.title, Note.body, Note.terms).where(Note.guild_id == guild_id)
        )
        found: list[Candidate] = [(i, f"{title}\n{body}", terms) for i, title, body, terms in rows]
        self._entries[guild_id] = (signature, found)
        self._entries.move_to_end(guild_id)
        while len(self._entries) > self._servers:
            self._entries.popitem(last=False)
        return found
