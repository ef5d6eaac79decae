"""The delivery engine: one scheduler job sleeps until the next due reminder, then posts it.

The reminders table is the truth; the scheduler holds one date job armed at the earliest pending
`next_attempt_at` (a cache rebuilt from the table at start and after every batch), so 100,000
pending reminders cost one job and no polling. Claimed reminders go to per-channel lanes.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
from datetime import UTC, datetime, timedelta
from functools import partial

from apscheduler.jobstores.base import JobLookupError
from apscheduler.schedulers.base import BaseScheduler
from apscheduler.triggers.date import DateTrigger
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.reminders.delivery.claims import Claim
from bot.reminders.delivery.courier import Outcome, ReminderCourier
from bot.reminders.delivery.lanes import ChannelLanes
from bot.reminders.delivery.ledger import DeliveryLedger
from bot.reminders.delivery.scope import ReminderScope
from bot.reminders.delivery.sender import OwnerFailureNotifier, ReminderSender
from bot.runtime.clock import Clock
from bot.runtime.pacing import SendPacer
from bot.runtime.shards import ShardPlan, default_worker_id
from bot.storage.outage import DatabaseHealth

log = logging.getLogger(__name__)

# A claim outlives a normal send (discord.py retries a 5xx for ~25 s); a crashed process's
# reminders become claimable again after it.
LEASE = timedelta(seconds=60)
BATCH_SIZE = 200
# Claimed but not yet sent, across all channels; beyond it the engine waits for lanes to drain.
MAX_IN_FLIGHT = 2000
# Deliveries (confirm, send, mark) in progress at once; the pacer sets the request rate.
MAX_CONCURRENT_SENDS = 32
# A cheap re-read of the earliest due time, so rows written by another process converge.
RESYNC_INTERVAL = timedelta(minutes=10)


class DeliveryEngine:
    """Delivers due reminders once each, in time, with the failure policy stored in the row."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        scheduler: BaseScheduler,
        sender: ReminderSender,
        notify_owner_failure: OwnerFailureNotifier,
        *,
        worker_id: str | None = None,
        lease: timedelta = LEASE,
        batch_size: int = BATCH_SIZE,
        max_in_flight: int = MAX_IN_FLIGHT,
        max_concurrent_sends: int = MAX_CONCURRENT_SENDS,
        resync_interval: timedelta | None = RESYNC_INTERVAL,
        job_id: str = "reminders.wake",
        jobstore: str = "default",
        shards: ShardPlan | None = None,
        identity: str | None = None,
        database_time: bool = False,
        pacer: SendPacer | None = None,
        scope: ReminderScope | None = None,
        health: DatabaseHealth | None = None,
    ) -> None:
        shards = shards or ShardPlan()
        self.job_id = job_id
        self._ledger = DeliveryLedger(
            sessions,
            worker_id=worker_id or default_worker_id(),
            lease=lease,
            identity=identity,
            shards=shards,
            database_time=database_time,
            scope=scope,
        )
        self.worker_id = self._ledger.worker_id
        self._pacer = pacer or SendPacer(shards.request_budget())
        self._courier = ReminderCourier(
            self._ledger,
            clock,
            sender,
            notify_owner_failure,
            self.notify_changed,
            before_send=self._pacer.wait_turn,
        )
        # Lanes carry reminder ids; the newest claim of each waits here until its turn.
        self._lanes: ChannelLanes[int] = ChannelLanes(
            self._deliver,
            max_concurrent=max_concurrent_sends,
            on_idle=self._lane_idle,
            before=self._pacer.wait_channel,
        )
        self._claims: dict[int, Claim] = {}
        # Outcome writes still running after their send; the lane went on to the next one.
        self._writes: set[asyncio.Task[None]] = set()
        self._clock = clock
        self._scheduler = scheduler
        self._batch_size = batch_size
        self._max_in_flight = max_in_flight
        self._resync_interval = resync_interval
        self._jobstore = jobstore
        self._claim_lock = asyncio.Lock()
        self._rearm_lock = asyncio.Lock()
        self._backlogged = False
        self._armed_at: datetime | None = None
        self._hint: datetime | None = None
        # Lease ends of rows whose outcome could not be written (posted, then the database went
        # away): the table cannot say when to look again at our own claims, so this does.
        self._lease_ends: list[datetime] = []
        self._running = False
        # An outage is retried and said once, not per row.
        self._health = health or DatabaseHealth()

    async def due_now(self) -> int:
        """How many of this engine's reminders are due and not yet delivered (for /metrics)."""
        return await self._ledger.count_due(self._clock.now())

    @property
    def armed_at(self) -> datetime | None:
        """When the wake-up job is due to run, or None when nothing is pending."""
        return self._armed_at

    async def start(self) -> None:
        """Deliver what is overdue now (flagged late) and arm the wake-up from the table.

        Call it as soon as the gateway connected (the sender posts through REST). Claims a
        previous run of this identity left behind are taken back first.
        """
        self._running = True
        if self._resync_interval is not None:
            self._scheduler.add_job(
                self._resync,
                "interval",
                seconds=self._resync_interval.total_seconds(),
                id=f"{self.job_id}.resync",
                replace_existing=True,
                coalesce=True,
                misfire_grace_time=None,
                jobstore=self._jobstore,
            )
        with self._health.tolerated(recovers=False):  # a restart paces on from its last posts
            self._pacer.resume(await self._ledger.recent_posts(self._clock.now()))
        await self._wake()

    async def stop(self, grace_seconds: float = 5.0) -> None:
        """Remove the jobs and let in-flight sends finish for up to grace_seconds. A send cut off
        here keeps its lease; the next start resends it with the same nonce, which Discord drops
        if the first send had gone through."""
        self._running = False
        for job_id in (self.job_id, f"{self.job_id}.resync"):
            with contextlib.suppress(JobLookupError):
                self._scheduler.remove_job(job_id, jobstore=self._jobstore)
        self._armed_at = None
        started = asyncio.get_running_loop().time()
        await self._lanes.stop(grace_seconds)
        if self._writes:
            left = max(0.0, grace_seconds - (asyncio.get_running_loop().time() - started))
            _, late = await asyncio.wait(self._writes, timeout=left)
            for task in late:
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)
        self._claims.clear()

    def notify_changed(self, due_at: datetime) -> None:
        """A reminder was created or moved to due_at: wake earlier if that is sooner."""
        if self._hint is None or due_at < self._hint:
            self._hint = due_at
        if self._running and (self._armed_at is None or due_at < self._armed_at):
            self._arm(due_at)

    async def rearm(self) -> None:
        """Arm the wake-up at the earliest time a pending reminder becomes deliverable."""
        async with self._rearm_lock:
            self._hint = None
            earliest = await self._ledger.earliest_wake()
            # A reminder created while we were reading may be earlier than what we read.
            if self._hint is not None and (earliest is None or self._hint < earliest):
                earliest = self._hint
            if self._lease_ends and (earliest is None or self._lease_ends[0] < earliest):
                earliest = self._lease_ends[0]
            if not self._running:
                return
            if earliest is None:
                self._disarm()
            elif not (self._backlogged and earliest <= self._clock.now()):
                # When backlogged, the lanes re-arm as they drain instead of spinning here.
                self._arm(earliest)

    async def run_due(self, *, wait: bool = True) -> int:
        """Claim every due reminder and queue it on its channel's lane; with wait, return once
        those deliveries finished. Returns how many were claimed."""
        done: list[asyncio.Future[None]] = []
        async with self._claim_lock:
            self._backlogged = False
            while True:
                room = self._max_in_flight - len(self._lanes)
                if room <= 0:
                    self._backlogged = True
                    break
                limit = min(self._batch_size, room)
                claims = await self._ledger.claim_due(self._clock.now(), limit)
                for claim in claims:
                    reminder_id = claim.row.id
                    # Already queued or sending: our lease ran out meanwhile and we claimed it
                    # again. The lane goes on with this newer claim, or the row would be held
                    # by a claim nobody works on.
                    queued = reminder_id in self._lanes
                    self._claims[reminder_id] = claim
                    if not queued:
                        done.append(
                            self._lanes.submit(claim.row.channel_id, reminder_id, reminder_id)
                        )
                if len(claims) < limit:
                    break
        if wait and done:
            await asyncio.gather(*done)
            await self._writes_done()
        return len(done)

    async def drain(self) -> None:
        """Wait until every claimed reminder was handled and recorded (tests and shutdown)."""
        await self._lanes.drain()
        await self._writes_done()

    async def _writes_done(self) -> None:
        while self._writes:
            await asyncio.gather(*list(self._writes), return_exceptions=True)

    async def _wake(self) -> None:
        self._armed_at = None
        # The claims below take back every row whose lease ended by now.
        now = self._clock.now()
        while self._lease_ends and self._lease_ends[0] <= now:
            heapq.heappop(self._lease_ends)
        with self._health.tolerated(retry=self._wake_in):
            if taken := await self._ledger.take_back_once():
                log.info("Took back %d reminders claimed before the last restart", taken)
            try:
                await self.run_due(wait=False)
            finally:
                await self.rearm()

    def _wake_in(self, seconds: float) -> None:
        # On the real clock (the scheduler's), however the engine tells time.
        self._arm(datetime.now(UTC) + timedelta(seconds=seconds))

    async def _resync(self) -> None:
        with self._health.tolerated(recovers=False):
            await self.rearm()

    async def _deliver(self, reminder_id: int) -> None:
        # A claim made while this one was sending is delivered next (the nonce makes a resend
        # of what was just posted harmless).
        while (claim := self._claims.pop(reminder_id, None)) is not None:
            try:
                # Outage: retry the claim (its token guards the row, the nonce the post).
                await self._health.until_reachable(
                    partial(self._courier.deliver, claim, write=self._write_later)
                )
            except Exception:
                self._look_again_later()
                raise

    def _write_later(self, outcome: Outcome) -> None:
        task = asyncio.create_task(self._write(outcome), name="reminder-outcome")
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)

    async def _write(self, outcome: Outcome) -> None:
        try:
            # Posted, and the database went away: the mark is written once it is back (the
            # claim's token still guards the row), not left for a resend after the lease.
            await self._health.until_reachable(outcome)
        except Exception:
            # Posted but not marked: claimed again once the lease ran out, the resend is
            # answered with the first message (the nonce).
            log.exception("recording a reminder's outcome failed")
            self._look_again_later()

    def _look_again_later(self) -> None:
        # The row may still hold our lease; look again once it runs out.
        lease_end = self._clock.now() + self._ledger.lease
        heapq.heappush(self._lease_ends, lease_end)
        self.notify_changed(lease_end)

    def _lane_idle(self) -> None:
        if self._backlogged and self._running and len(self._lanes) <= self._max_in_flight // 2:
            self._backlogged = False
            self._arm(self._clock.now())

    def _arm(self, when: datetime) -> None:
        self._scheduler.add_job(
            self._wake,
            trigger=DateTrigger(run_date=when.astimezone(UTC)),
            id=self.job_id,
            replace_existing=True,
            # APScheduler's default 1 s grace silently drops a wake that fell due while busy.
            misfire_grace_time=None,
            coalesce=True,
            # A wake armed while one runs waits on the claim lock instead of being skipped.
            max_instances=2,
            jobstore=self._jobstore,
        )
        self._armed_at = when

    def _disarm(self) -> None:
        with contextlib.suppress(JobLookupError):
            self._scheduler.remove_job(self.job_id, jobstore=self._jobstore)
        self._armed_at = None
