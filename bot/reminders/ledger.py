"""The delivery's bookkeeping in the reminders table: claims, leases, outcomes.

Every write is a conditional UPDATE, so two bot processes on one database never both own a row.
"""

from __future__ import annotations

import itertools
import os
import socket
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.reminders.scope import ReminderScope
from bot.storage.reminders import Reminder, ReminderState


def default_worker_id() -> str:
    """host:pid:random, unique per process even when containers share a pid."""
    return f"{socket.gethostname()[:24]}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


@dataclass(frozen=True)
class Claim:
    """A row this process owns until the lease runs out; token identifies the claim."""

    row: Reminder
    token: str


class DeliveryLedger:
    """Claims due reminders and records what happened to them."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        worker_id: str,
        lease: timedelta,
        scope: ReminderScope | None = None,
    ) -> None:
        self._sessions = sessions
        self._scope = (scope or ReminderScope()).condition()
        self._worker_id = worker_id[:50]
        self._lease = lease
        self._sequence = itertools.count(1)

    @property
    def lease(self) -> timedelta:
        """How long a claim holds without being renewed."""
        return self._lease

    async def claim_due(self, now: datetime, limit: int) -> list[Claim]:
        """Claim up to limit due rows, oldest first, that nobody else holds a live lease on."""
        token = f"{self._worker_id}#{next(self._sequence)}"
        lease_until = now + self._lease
        due = and_(
            self._scope,
            Reminder.state == ReminderState.PENDING,
            Reminder.next_attempt_at <= now,
            or_(Reminder.lease_until.is_(None), Reminder.lease_until <= now),
        )
        # Ids first, then the update: as one UPDATE … WHERE id IN (SELECT … LIMIT n) PostgreSQL
        # may re-run the subquery per row when statistics are stale and claim far more than n.
        # SKIP LOCKED lets PostgreSQL workers take disjoint batches; SQLite ignores it and
        # serialises writers instead. The update repeats `due` so a row claimed by someone else
        # meanwhile is left alone.
        candidates = (
            select(Reminder.id)
            .where(due)
            .order_by(Reminder.next_attempt_at, Reminder.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        async with self._sessions() as session, session.begin():
            ids = list(await session.scalars(candidates))
            if not ids:
                return []
            await session.execute(
                update(Reminder)
                .where(due, Reminder.id.in_(ids))
                .values(lease_until=lease_until, claimed_by=token)
                .execution_options(synchronize_session=False)
            )
            rows = await session.scalars(
                select(Reminder).where(Reminder.id.in_(ids), Reminder.claimed_by == token)
            )
            ordered = sorted(rows, key=lambda row: (row.next_attempt_at, row.id))
            return [Claim(row, token) for row in ordered]

    async def confirm(self, claim: Claim, now: datetime) -> bool:
        """Renew the lease right before sending; False if the row was cancelled, edited or
        taken over meanwhile."""
        return await self._update(claim, lease_until=now + self._lease)

    async def mark_delivered(self, claim: Claim, message_id: int, now: datetime) -> bool:
        """A one-time reminder (or the last of a series) was posted."""
        return await self._update(
            claim,
            state=ReminderState.DELIVERED,
            delivered_message_id=message_id,
            delivered_at=now,
            last_error=None,
            lease_until=None,
            claimed_by=None,
        )

    async def advance(
        self, claim: Claim, message_id: int, now: datetime, next_due: datetime, occurrence: int
    ) -> bool:
        """An occurrence of a series was posted; the same row now waits for the next one."""
        return await self._update(
            claim,
            occurrence=occurrence,
            due_at=next_due,
            next_attempt_at=next_due,
            attempts=0,
            retries=0,
            last_error=None,
            delivered_message_id=message_id,
            delivered_at=now,
            lease_until=None,
            claimed_by=None,
        )

    async def reschedule(
        self,
        claim: Claim,
        *,
        next_attempt_at: datetime,
        attempts: int,
        retries: int,
        last_error: str,
        failed: bool = False,
    ) -> bool:
        """Release the claim after a failed send, storing the failure policy's state."""
        return await self._update(
            claim,
            state=ReminderState.FAILED if failed else ReminderState.PENDING,
            next_attempt_at=next_attempt_at,
            attempts=attempts,
            retries=retries,
            last_error=last_error[:1000],
            lease_until=None,
            claimed_by=None,
        )

    async def earliest_wake(self) -> datetime | None:
        """When the next pending row becomes claimable: its due time, or the end of a lease
        held by another process (ours end by being marked; a failed mark re-arms itself)."""
        async with self._sessions() as session:
            next_due = await session.scalar(
                select(Reminder.next_attempt_at)
                .where(
                    self._scope,
                    Reminder.state == ReminderState.PENDING,
                    Reminder.lease_until.is_(None),
                )
                .order_by(Reminder.next_attempt_at)
                .limit(1)
            )
            next_lease_end = await session.scalar(
                select(Reminder.lease_until)
                .where(
                    self._scope,
                    Reminder.state == ReminderState.PENDING,
                    Reminder.lease_until.is_not(None),
                    ~Reminder.claimed_by.startswith(f"{self._worker_id}#", autoescape=True),
                )
                .order_by(Reminder.lease_until)
                .limit(1)
            )
        times = [t for t in (next_due, next_lease_end) if t is not None]
        return min(times) if times else None

    async def _update(self, claim: Claim, **values: Any) -> bool:
        async with self._sessions() as session, session.begin():
            result = await session.execute(
                update(Reminder)
                .where(
                    Reminder.id == claim.row.id,
                    Reminder.state == ReminderState.PENDING,
                    Reminder.occurrence == claim.row.occurrence,
                    Reminder.claimed_by == claim.token,
                )
                .values(**values)
                .execution_options(synchronize_session=False)
            )
        return bool(result.rowcount == 1)  # type: ignore[attr-defined]
