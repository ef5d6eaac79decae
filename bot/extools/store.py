"""Registrations as rows: the truth every bot process reads, so tools survive restarts."""

from __future__ import annotations

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.extools.credentials import SHARED, Caller
from bot.extools.registration import Refused, Registration
from bot.runtime.clock import Clock
from bot.storage.engine import one_writer, write_sessions
from bot.storage.external_tools import ExternalToolRow, ToolCredentialRow

# Registrations the bot keeps at most: each is a row read every few seconds by every process,
# and no model request offers more than agent.tools.MAX_TOOLS_PER_REQUEST anyway.
MAX_REGISTERED_TOOLS = 500


class ExternalToolStore:
    """Reads and writes `external_tools` rows, one short transaction each.

    Writes take SQLite's write lock when they begin (and this process's writer lock), so a
    burst of registrations waits its turn instead of failing with "database is locked".
    """

    def __init__(self, sessions: async_sessionmaker[AsyncSession], clock: Clock) -> None:
        self._sessions = sessions
        self._writes = write_sessions(sessions)
        self._clock = clock

    async def save(self, registration: Registration, caller: Caller = SHARED) -> ExternalToolRow:
        """Insert or overwrite the tool as caller may; a re-registration is healthy again, an
        admin's disable stays. Refused when the source or the name belongs to another."""
        try:
            return await self._save(registration, caller)
        except IntegrityError:
            # Another process inserted the same name between our read and our write.
            return await self._save(registration, caller)

    async def _save(self, registration: Registration, caller: Caller) -> ExternalToolRow:
        now = self._clock.now()
        name, source = registration.name, registration.source
        async with one_writer(self._sessions), self._writes() as session, session.begin():
            if caller.shared and await _claimed(session, source):
                raise Refused(
                    "source",
                    f"source {source!r} has its own token: register its tools with that token "
                    "(OTOMO_TOOLS_TOKEN in the plugin), not the shared TOOLS_API_TOKEN",
                    status=403,
                )
            row = await session.get(ExternalToolRow, name)
            taken = row is not None and row.credential_id is not None
            if row is not None and taken and (caller.shared or row.source != source):
                raise Refused(
                    "name",
                    f"name {name!r} belongs to source {row.source!r}, which registered it "
                    "with its own token: choose another name",
                    status=409,
                )
            if row is None:
                count = await session.scalar(select(func.count()).select_from(ExternalToolRow))
                if (count or 0) >= MAX_REGISTERED_TOOLS:
                    raise Refused(
                        "name",
                        f"the bot already has {MAX_REGISTERED_TOOLS} tools from outside: "
                        "unregister some before adding more",
                        status=409,
                    )
                row = ExternalToolRow(name=name, disabled=False)
                session.add(row)
            row.description = registration.description
            row.parameters = registration.parameters
            row.callback_url = registration.callback_url
            row.source = source
            row.timeout_seconds = registration.timeout_seconds
            row.handlers = list(registration.handlers) if registration.handlers else None
            row.guild_id = registration.guild_id
            row.credential_id = caller.credential_id
            row.available = True
            row.last_error = None
            row.registered_at = now
            row.checked_at = now
        return row

    async def all(self) -> list[ExternalToolRow]:
        """Every registration, by name."""
        async with self._sessions() as session:
            rows = await session.scalars(select(ExternalToolRow).order_by(ExternalToolRow.name))
            return list(rows)

    async def get(self, name: str) -> ExternalToolRow | None:
        """The registration called name."""
        async with self._sessions() as session:
            return await session.get(ExternalToolRow, name)

    async def delete(self, name: str, caller: Caller = SHARED) -> bool:
        """Remove one registration caller may remove; True when it existed."""
        async with one_writer(self._sessions), self._writes() as session, session.begin():
            row = await session.get(ExternalToolRow, name)
            if row is None or (not caller.shared and row.source != caller.source):
                return False
            if caller.shared and row.credential_id is not None:
                raise Refused(
                    "name",
                    f"{name!r} was registered with source {row.source!r}'s own token: only that "
                    f"token removes it (or `python -m bot tools token revoke {row.source}`)",
                    status=403,
                )
            await session.delete(row)
        return True

    async def delete_source(self, source: str, caller: Caller = SHARED) -> list[str]:
        """Remove every registration of source; return their names."""
        async with one_writer(self._sessions), self._writes() as session, session.begin():
            if caller.shared and await _claimed(session, source):
                raise Refused(
                    "source",
                    f"source {source!r} has its own token: only that token clears it (or "
                    f"`python -m bot tools token revoke {source}`)",
                    status=403,
                )
            names = list(
                await session.scalars(
                    select(ExternalToolRow.name).where(ExternalToolRow.source == source)
                )
            )
            if names:
                await session.execute(
                    delete(ExternalToolRow).where(ExternalToolRow.name.in_(names))
                )
        return sorted(names)

    async def mark(self, name: str, available: bool, error: str | None) -> None:
        """Record a health observation."""
        async with one_writer(self._sessions), self._writes() as session, session.begin():
            row = await session.get(ExternalToolRow, name)
            if row is not None:
                row.available = available
                row.last_error = error
                row.checked_at = self._clock.now()

    async def set_disabled(self, name: str, disabled: bool) -> ExternalToolRow | None:
        """An admin's switch; None when there is no such tool."""
        async with one_writer(self._sessions), self._writes() as session, session.begin():
            row = await session.get(ExternalToolRow, name)
            if row is not None:
                row.disabled = disabled
        return row


async def _claimed(session: AsyncSession, source: str) -> bool:
    """Whether source has a credential of its own."""
    found = await session.scalar(
        select(ToolCredentialRow.id).where(ToolCredentialRow.source == source).limit(1)
    )
    return found is not None
