"""Registrations as rows: the truth every bot process reads, so tools survive restarts."""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.extools.registration import Registration
from bot.runtime.clock import Clock
from bot.storage.external_tools import ExternalToolRow


class ExternalToolStore:
    """Reads and writes `external_tools` rows, one short transaction each."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], clock: Clock) -> None:
        self._sessions = sessions
        self._clock = clock

    async def save(self, registration: Registration) -> ExternalToolRow:
        """Insert or overwrite the tool; a re-registration is healthy again, an admin's
        disable stays."""
        try:
            return await self._save(registration)
        except IntegrityError:
            # Another process inserted the same name between our read and our write.
            return await self._save(registration)

    async def _save(self, registration: Registration) -> ExternalToolRow:
        now = self._clock.now()
        async with self._sessions() as session, session.begin():
            row = await session.get(ExternalToolRow, registration.name)
            if row is None:
                row = ExternalToolRow(name=registration.name, disabled=False)
                session.add(row)
            row.description = registration.description
            row.parameters = registration.parameters
            row.callback_url = registration.callback_url
            row.source = registration.source
            row.timeout_seconds = registration.timeout_seconds
            row.handlers = list(registration.handlers) if registration.handlers else None
            row.guild_id = registration.guild_id
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

    async def delete(self, name: str) -> bool:
        """Remove one registration; True when it existed."""
        async with self._sessions() as session, session.begin():
            result = await session.execute(
                delete(ExternalToolRow).where(ExternalToolRow.name == name)
            )
        return bool(getattr(result, "rowcount", 0))

    async def delete_source(self, source: str) -> list[str]:
        """Remove every registration of source; return their names."""
        async with self._sessions() as session, session.begin():
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
        async with self._sessions() as session, session.begin():
            row = await session.get(ExternalToolRow, name)
            if row is not None:
                row.available = available
                row.last_error = error
                row.checked_at = self._clock.now()

    async def set_disabled(self, name: str, disabled: bool) -> ExternalToolRow | None:
        """An admin's switch; None when there is no such tool."""
        async with self._sessions() as session, session.begin():
            row = await session.get(ExternalToolRow, name)
            if row is not None:
                row.disabled = disabled
        return row
