"""Claiming task runs once per bot: each due time becomes one run row, held under a lease.

A due task is claimed by moving the task to its next time and inserting the run in one
transaction (the row lock on PostgreSQL, SQLite's write lock, a unique due time per task), so of
two processes exactly one runs it. A run whose process died keeps its row; once its lease ran
out another process takes it over and runs it again, and the post's deterministic nonce makes
Discord drop a second copy of a post that had gone out.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.runtime.shards import default_worker_id
from bot.schedule.repeat import load_rule
from bot.storage.engine import database_now, one_writer, write_sessions
from bot.tasks.schedule import after
from bot.tasks.service import TaskView
from bot.tasks.table import RunStatus, Task, TaskRun, TaskState

LEASE = timedelta(minutes=2)


@dataclass(frozen=True)
class RunClaim:
    """A run this process owns until its lease runs out; token identifies the claim."""

    run_id: int
    token: str
    task: TaskView
    due_at: datetime
    manual: bool

    @property
    def nonce(self) -> str:
        """Discord's nonce of this run's post: the same for every attempt (at most 25 chars)."""
        if self.manual:
            return f"t{self.task.id}m{self.run_id}"
        return f"t{self.task.id}d{int(self.due_at.timestamp()) // 60}"


class TaskLedger:
    """Claims due runs and records their outcomes (every write conditional on the claim)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        worker: str | None = None,
        lease: timedelta = LEASE,
        database_time: bool = False,
    ) -> None:
        self._reads = sessions
        self._sessions = write_sessions(sessions)
        self._writer = one_writer(sessions)
        self.worker = (worker or default_worker_id())[:40]
        self.lease = lease
        self._sequence = itertools.count(1)
        self._database_time = database_time

    async def _lease_now(self, session: AsyncSession, now: datetime) -> datetime:
        # Leases compare instants across processes: on the real clock, the database's.
        return await database_now(session) if self._database_time else now

    def _token(self) -> str:
        return f"{self.worker}#{next(self._sequence)}"

    async def claim_due(self, now: datetime, limit: int = 100) -> list[RunClaim]:
        """Claim up to limit runs: those whose process died first, then tasks due by now."""
        token = self._token()
        claims: list[RunClaim] = []
        async with self._writer, self._sessions() as session, session.begin():
            lease_now = await self._lease_now(session, now)
            until = lease_now + self.lease
            stale = and_(
                TaskRun.status.in_([RunStatus.RUNNING]),
                TaskRun.lease_until <= lease_now,
            )
            runs = list(
                await session.scalars(
                    select(TaskRun)
                    .where(stale)
                    .order_by(TaskRun.id)
                    .limit(limit)
                    .with_for_update(skip_locked=True)
                )
            )
            for run in runs:
                run.claimed_by, run.lease_until = token, until
                task = await session.get(Task, run.task_id)
                if task is not None:
                    claims.append(
                        RunClaim(run.id, token, TaskView.of(task), run.due_at, run.manual)
                    )
            due = list(
                await session.scalars(
                    select(Task)
                    .where(Task.state == TaskState.ACTIVE, Task.next_run_at <= now)
                    .order_by(Task.next_run_at, Task.id)
                    .limit(max(0, limit - len(claims)))
                    .with_for_update(skip_locked=True)
                )
            )
            for task in due:
                view = TaskView.of(task)
                due_at = task.next_run_at
                nxt = after(load_rule(task.repeat), due_at, task.occurrence, view.tz, now)
                if nxt is None:
                    task.state = TaskState.FINISHED
                else:
                    task.next_run_at, task.occurrence = nxt
                run = _started_run(task.id, task.guild_id, due_at, False, token, until, now)
                session.add(run)
                await session.flush()
                claims.append(RunClaim(run.id, token, view, due_at, False))
        return claims

    async def claim_now(self, task: TaskView, now: datetime) -> RunClaim:
        """Claim a run of task right now ("run now"), outside its schedule."""
        token = self._token()
        async with self._writer, self._sessions() as session, session.begin():
            until = await self._lease_now(session, now) + self.lease
            run = _started_run(task.id, task.guild_id, now, True, token, until, now)
            session.add(run)
            await session.flush()
            return RunClaim(run.id, token, task, now, True)

    async def renew(self, claim: RunClaim, now: datetime) -> bool:
        """Keep holding a run that is still working; False when someone else took it over."""
        async with self._writer, self._sessions() as session, session.begin():
            until = await self._lease_now(session, now) + self.lease
            result = await session.execute(
                update(TaskRun)
                .where(TaskRun.id == claim.run_id, TaskRun.claimed_by == claim.token)
                .values(lease_until=until)
            )
            return _changed(result)

    async def finish(
        self,
        claim: RunClaim,
        status: RunStatus,
        now: datetime,
        *,
        late_seconds: int | None = None,
        message_id: int | None = None,
        reason: str | None = None,
    ) -> int | None:
        """Record the run's outcome; the task's failures in a row after it (None: the claim
        was lost, nothing recorded)."""
        async with self._writer, self._sessions() as session, session.begin():
            result = await session.execute(
                update(TaskRun)
                .where(
                    TaskRun.id == claim.run_id,
                    TaskRun.claimed_by == claim.token,
                    TaskRun.status.in_([RunStatus.RUNNING, RunStatus.WAITING]),
                )
                .values(
                    status=status,
                    finished_at=now,
                    lease_until=None,
                    late_seconds=late_seconds,
                    message_id=message_id,
                    reason=reason,
                )
            )
            if not _changed(result):
                return None
            task = await session.get(Task, claim.task.id)
            if task is None:
                return 0
            if status == RunStatus.FAILED:
                task.failures_in_row += 1
            elif status in (RunStatus.ON_TIME, RunStatus.LATE):
                task.failures_in_row = 0
            return task.failures_in_row

    async def wait_for_person(self, claim: RunClaim, now: datetime) -> None:
        """The run handed a call to its owner's card: it is no longer this process's to redo."""
        async with self._writer, self._sessions() as session, session.begin():
            await session.execute(
                update(TaskRun)
                .where(TaskRun.id == claim.run_id, TaskRun.claimed_by == claim.token)
                .values(status=RunStatus.WAITING, lease_until=None, finished_at=now)
            )

    async def pause(self, task_id: int, reason: str, now: datetime) -> bool:
        """Pause a task that failed too often; False when it was not active any more."""
        async with self._writer, self._sessions() as session, session.begin():
            result = await session.execute(
                update(Task)
                .where(Task.id == task_id, Task.state == TaskState.ACTIVE)
                .values(state=TaskState.PAUSED, paused_reason=reason, updated_at=now)
            )
            return _changed(result)


def _changed(result: Any) -> bool:
    return bool(getattr(result, "rowcount", 0) == 1)


def _started_run(
    task_id: int,
    guild_id: int | None,
    due_at: datetime,
    manual: bool,
    token: str,
    until: datetime,
    now: datetime,
) -> TaskRun:
    """A run row claimed by token until `until`, started now."""
    return TaskRun(
        task_id=task_id,
        guild_id=guild_id,
        due_at=due_at,
        manual=manual,
        status=RunStatus.RUNNING,
        claimed_by=token,
        lease_until=until,
        started_at=now,
    )
