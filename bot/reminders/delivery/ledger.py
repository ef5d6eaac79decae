"""The delivery's bookkeeping in the reminders table: claims, leases, outcomes.

Every write is a conditional UPDATE, so two bot processes on one database never both own a row."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Update,
    and_,
    case,
    func,
    literal,
    or_,
    select,
    tuple_,
    update,
)
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.reminders.delivery.claims import Claim, Posted
from bot.reminders.delivery.scope import ReminderScope, owned_by
from bot.reminders.table import Consent, Reminder, ReminderState
from bot.runtime.pacing import CHANNEL_WINDOW_SECONDS
from bot.runtime.shards import ShardPlan
from bot.storage.engine import UTCDateTime, database_now, one_writer, write_sessions


class DeliveryLedger:
    """Claims due reminders and records what happened to them."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        worker_id: str,
        lease: timedelta,
        identity: str | None = None,
        shards: ShardPlan | None = None,
        database_time: bool = False,
        scope: ReminderScope | None = None,
    ) -> None:
        self._scope = (scope or ReminderScope()).condition()
        # Write transactions take SQLite's write lock at BEGIN; reads (plain sessions) neither
        # wait for it nor make another process wait.
        self._sessions = write_sessions(sessions)
        self._reads = sessions
        self._writer = one_writer(sessions)
        self._identity = identity
        boot = uuid.uuid4().hex[:8]
        self._worker_id = (f"{identity}#{boot}" if identity else worker_id)[:50]
        self._lease = lease
        self._sequence = itertools.count(1)
        self._owned = owned_by(shards or ShardPlan())
        self._database_time = database_time
        self._taken_back = False

    @property
    def worker_id(self) -> str:
        """What claimed_by starts with for this process's claims."""
        return self._worker_id

    @property
    def lease(self) -> timedelta:
        """How long a claim holds without being renewed."""
        return self._lease

    async def claim_due(self, now: datetime, limit: int) -> list[Claim]:
        """Claim up to limit due rows, in the order they fell due, that nobody else holds a
        live lease on. A retried row (after a 429, say) keeps its place: pushed behind the
        burst, a post Discord may already hold could come back after Discord forgot its nonce."""
        token = f"{self._worker_id}#{next(self._sequence)}"
        async with self._writer, self._sessions() as session, session.begin():
            lease_now = await self._lease_now(session, now)
            due = and_(
                self._scope,
                Reminder.state == ReminderState.PENDING,
                Reminder.next_attempt_at <= now,
                or_(Reminder.lease_until.is_(None), Reminder.lease_until <= lease_now),
                self._owned,
            )
            chosen = (
                select(Reminder.id).where(due).order_by(Reminder.due_at, Reminder.id).limit(limit)
            )
            if session.get_bind().dialect.name == "sqlite":
                # One statement, so the transaction starts as a writer and waits on busy_timeout;
                # a SELECT first would make it a reader that fails with "database is locked"
                # when it upgrades. SQLite runs the uncorrelated subquery once.
                targets: Any = Reminder.id.in_(chosen.scalar_subquery())
            else:
                # Ids first, then the update: as one UPDATE … WHERE id IN (SELECT … LIMIT n),
                # PostgreSQL may re-run the subquery per row when statistics are stale and claim
                # far more than n. SKIP LOCKED lets workers take disjoint batches.
                ids = list(await session.scalars(chosen.with_for_update(skip_locked=True)))
                if not ids:
                    return []
                targets = Reminder.id.in_(ids)
            # The update repeats `due`, so a row claimed by someone else meanwhile is left alone.
            rows = await session.scalars(
                update(Reminder)
                .where(due, targets)
                .values(lease_until=lease_now + self._lease, claimed_by=token)
                .returning(Reminder),
                execution_options={"synchronize_session": False},
            )
            ordered = sorted(rows, key=lambda row: (row.due_at, row.id))
            return [Claim(row, token) for row in ordered]

    async def take_back_once(self) -> int:
        """take_back, the first time this is called; 0 afterwards."""
        if self._taken_back:
            return 0
        taken = await self.take_back()
        self._taken_back = True
        return taken

    async def take_back(self) -> int:
        """Release the claims a previous run of this identity (same shards) left when it died,
        so they are delivered now instead of when their leases run out. Returns how many."""
        if not self._identity:
            return 0
        async with self._writer, self._sessions() as session, session.begin():
            result = await session.execute(
                update(Reminder)
                .where(
                    Reminder.state == ReminderState.PENDING,
                    Reminder.claimed_by.startswith(f"{self._identity}#", autoescape=True),
                    ~Reminder.claimed_by.startswith(f"{self._worker_id}#", autoescape=True),
                )
                .values(lease_until=None, claimed_by=None)
                .execution_options(synchronize_session=False)
            )
        return int(result.rowcount or 0)  # type: ignore[attr-defined]

    async def confirm(self, claim: Claim, now: datetime) -> bool:
        """Renew the lease right before sending; False if cancelled, edited or taken over."""
        return (await self.confirm_many([claim], now))[0]

    async def confirm_many(self, claims: Sequence[Claim], now: datetime) -> list[bool]:
        """confirm for claims of distinct rows in one statement; a result per claim."""
        async with self._writer, self._sessions() as session, session.begin():
            lease_until = await self._lease_now(session, now) + self._lease
            held = set(
                await session.scalars(
                    update(Reminder)
                    .where(self._still_claimed(claims))
                    .values(lease_until=lease_until)
                    .returning(Reminder.id)
                    .execution_options(synchronize_session=False)
                )
            )
        return [claim.row.id in held for claim in claims]

    async def mark_delivered(self, claim: Claim, message_id: int, now: datetime) -> bool:
        """A one-time reminder (or the last of a series) was posted."""
        return (await self.mark_delivered_many([Posted(claim, message_id, now)]))[0]

    async def mark_delivered_many(self, posted: Sequence[Posted]) -> list[bool]:
        """mark_delivered for posts of distinct rows in one statement; a result per post.
        Only what Discord accepted comes here: a row is never marked ahead of its post."""
        ids = Reminder.id
        message_ids = {p.claim.row.id: literal(p.message_id, BigInteger()) for p in posted}
        times = {p.claim.row.id: literal(p.at, UTCDateTime()) for p in posted}
        async with self._writer, self._sessions() as session, session.begin():
            marked = set(
                await session.scalars(
                    update(Reminder)
                    .where(self._still_claimed([p.claim for p in posted]))
                    .execution_options(synchronize_session=False)
                    .values(
                        state=ReminderState.DELIVERED,
                        delivered_message_id=case(message_ids, value=ids),
                        delivered_at=case(times, value=ids),
                        last_error=None,
                        lease_until=None,
                        claimed_by=None,
                    )
                    .returning(Reminder.id)
                )
            )
        return [p.claim.row.id in marked for p in posted]

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

    async def consent_asked(self, claim: Claim) -> bool:
        """The request for the member's consent was posted: wait for them until the due time."""
        return await self._update(
            claim,
            consent=Consent.ASKED,
            next_attempt_at=claim.row.due_at,
            attempts=0,
            retries=0,
            last_error=None,
            lease_until=None,
            claimed_by=None,
        )

    async def consent_expired(self, claim: Claim, now: datetime) -> bool:
        """The due time came without the member's consent, and the asker was told: closed,
        never delivered."""
        return await self._update(
            claim,
            state=ReminderState.CANCELLED,
            consent=Consent.EXPIRED,
            cancelled_at=now,
            lease_until=None,
            claimed_by=None,
        )

    async def recent_posts(self, now: datetime) -> list[tuple[int, float]]:
        """(channel, seconds ago) of the posts marked in this scope within a channel window."""
        since = now - timedelta(seconds=CHANNEL_WINDOW_SECONDS)
        async with self._reads() as session:
            rows = await session.execute(
                select(Reminder.channel_id, Reminder.delivered_at).where(
                    self._scope, self._owned, Reminder.delivered_at >= since
                )
            )
        return [(channel, (now - at).total_seconds()) for channel, at in rows if at is not None]

    async def count_due(self, now: datetime) -> int:
        """Pending rows of this process that are due by now (claimed ones included)."""
        async with self._reads() as session:
            found = await session.scalar(
                select(func.count())
                .select_from(Reminder)
                .where(
                    self._scope,
                    Reminder.state == ReminderState.PENDING,
                    Reminder.next_attempt_at <= now,
                    self._owned,
                )
            )
        return int(found or 0)

    async def earliest_wake(self) -> datetime | None:
        """When the next pending row becomes claimable: its due time, or the end of a lease
        held by another process (ours end by being marked; a failed mark re-arms itself)."""
        async with self._reads() as session:
            next_due = await session.scalar(
                select(Reminder.next_attempt_at)
                .where(
                    self._scope,
                    Reminder.state == ReminderState.PENDING,
                    Reminder.lease_until.is_(None),
                    self._owned,
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
                    self._owned,
                    ~Reminder.claimed_by.startswith(f"{self._worker_id}#", autoescape=True),
                )
                .order_by(Reminder.lease_until)
                .limit(1)
            )
        times = [t for t in (next_due, next_lease_end) if t is not None]
        return min(times) if times else None

    async def _update(self, claim: Claim, **values: Any) -> bool:
        async with self._writer, self._sessions() as session, session.begin():
            result = await session.execute(self._conditional(claim).values(**values))
        return bool(result.rowcount == 1)  # type: ignore[attr-defined]

    def _still_claimed(self, claims: Sequence[Claim]) -> ColumnElement[bool]:
        # The condition of _conditional for many rows: (id, occurrence, token) in a list. The
        # plain id list lets the primary key find the rows: SQLite uses no index for the
        # row-value list alone and scans the whole table.
        held = tuple_(Reminder.id, Reminder.occurrence, Reminder.claimed_by).in_(
            [(c.row.id, c.row.occurrence, c.token) for c in claims]
        )
        ids = Reminder.id.in_([c.row.id for c in claims])
        return and_(ids, Reminder.state == ReminderState.PENDING, held)

    def _conditional(self, claim: Claim) -> Update:
        return (
            update(Reminder)
            .where(
                Reminder.id == claim.row.id,
                Reminder.state == ReminderState.PENDING,
                Reminder.occurrence == claim.row.occurrence,
                Reminder.claimed_by == claim.token,
            )
            .execution_options(synchronize_session=False)
        )

    async def _lease_now(self, session: AsyncSession, now: datetime) -> datetime:
        # Leases are compared across processes: with database_time they all read one clock.
        return await database_now(session) if self._database_time else now
