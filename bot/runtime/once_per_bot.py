"""Jobs that must run once per bot, however many processes it runs in.

Every process schedules them; at run time each asks for the lease row (`bot_leases`). The holder
renews it every RENEW_EVERY; when it dies the lease runs out after TTL and the next process to
ask takes it, so another process takes over within a minute. A process that is not the holder
when a job falls due waits up to TTL for the lease before leaving the job to the holder, so a
daily post due just after its holder died is still made.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from datetime import timedelta
from typing import Any

from apscheduler.schedulers.base import BaseScheduler
from sqlalchemy import or_, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.storage.engine import database_now
from bot.storage.leases import BotLeaseRow
from bot.storage.outage import DatabaseHealth

log = logging.getLogger(__name__)

TTL = timedelta(seconds=45)
RENEW_EVERY = TTL / 3
# How often a process that is not the holder asks again while a job of its waits.
ASK_AGAIN_SECONDS = 5.0
LEASE_NAME = "jobs"


class BotLease:
    """The right to run the once-per-bot jobs, held by at most one live process."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        holder: str,
        *,
        ttl: timedelta = TTL,
        name: str = LEASE_NAME,
        health: DatabaseHealth | None = None,
    ) -> None:
        self._sessions = sessions
        self.holder = holder[:64]
        self._ttl = ttl
        self._name = name
        self.held = False
        self._health = health or DatabaseHealth()

    async def acquire(self) -> bool:
        """Take or renew the lease; True if this process holds it now."""
        try:
            async with self._sessions() as session, session.begin():
                now = await database_now(session)
                result = await session.execute(
                    update(BotLeaseRow)
                    .where(
                        BotLeaseRow.name == self._name,
                        or_(BotLeaseRow.holder == self.holder, BotLeaseRow.expires_at <= now),
                    )
                    .values(holder=self.holder, expires_at=now + self._ttl)
                    .execution_options(synchronize_session=False)
                )
                held = bool(result.rowcount == 1)  # type: ignore[attr-defined]
                if not held and await session.get(BotLeaseRow, self._name) is None:
                    session.add(
                        BotLeaseRow(name=self._name, holder=self.holder, expires_at=now + self._ttl)
                    )
                    held = True
        except IntegrityError:
            held = False  # another process inserted the row first
        except Exception as exc:
            # No database, no lease: the jobs wait rather than run twice. An outage is said
            # once (by the database's health), anything else here each time.
            if not self._health.noticed(exc):
                log.warning(
                    "Could not renew the lease on once-per-bot jobs; retrying", exc_info=True
                )
            held = False
        else:
            self._health.recovered()
        if held != self.held:
            log.info(
                "This process %s the once-per-bot jobs (daily weather, tips, sweeps)",
                "now runs" if held else "no longer runs",
            )
        self.held = held
        return held

    async def wait_for(self, patience: timedelta) -> bool:
        """Hold the lease now, or within patience if its holder has died; else False."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + patience.total_seconds()
        while not await self.acquire():
            if loop.time() >= deadline:
                return False
            await asyncio.sleep(ASK_AGAIN_SECONDS)
        return True

    def guard(
        self, job: Callable[..., Awaitable[Any]], *, patient: bool
    ) -> Callable[..., Awaitable[Any]]:
        """job, run only in the process holding the lease; a patient job (one due at a set
        time) waits for a dead holder's lease to run out, a periodic one just skips a turn."""

        async def once_per_bot(*args: Any, **kwargs: Any) -> Any:
            if not await self.wait_for(self._ttl if patient else timedelta(0)):
                log.debug("%s left to the process holding the lease", job)
                return None
            return await job(*args, **kwargs)

        return once_per_bot


def run_once_per_bot(
    scheduler: BaseScheduler,
    lease: BotLease,
    *,
    due_at_set_times: Iterable[str],
    periodic: Iterable[str],
    renew_every: timedelta = RENEW_EVERY,
) -> None:
    """Guard the scheduled jobs with the lease (by job id), and keep renewing it."""
    for job_ids, patient in ((due_at_set_times, True), (periodic, False)):
        for job_id in job_ids:
            job = scheduler.get_job(job_id)
            if job is not None:
                job.modify(func=lease.guard(job.func, patient=patient))
    scheduler.add_job(
        lease.acquire,
        "interval",
        seconds=renew_every.total_seconds(),
        id="once_per_bot.renew",
        coalesce=True,
        max_instances=1,
        replace_existing=True,
        misfire_grace_time=None,
    )
