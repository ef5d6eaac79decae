"""Retention: conversation history and the LLM call log are deleted after their number of days."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta

from apscheduler.job import Job
from apscheduler.schedulers.base import BaseScheduler
from apscheduler.triggers.cron import CronTrigger
from sqlalchemy import delete
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.agent.approvals.service import Status
from bot.runtime.clock import Clock
from bot.settings import Settings
from bot.storage.agent import ApprovalRequest, ConversationMessage, LLMCall, ToolCardMessage

log = logging.getLogger(__name__)

RETENTION_JOB_ID = "retention.daily"
# A quiet local hour for the daily pass; a pass missed while the bot was down runs at start.
RETENTION_HOUR = 4
RETENTION_MINUTE = 30


@dataclass(frozen=True, slots=True)
class RetentionReport:
    """How many rows one pass deleted."""

    messages: int = 0
    approvals: int = 0
    llm_calls: int = 0


class Retention:
    """Deletes what is older than HISTORY_RETENTION_DAYS and LLM_LOG_RETENTION_DAYS (0 = keep)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        history_days: int,
        llm_log_days: int,
    ) -> None:
        self._sessions = sessions
        self._clock = clock
        self.history_days = history_days
        self.llm_log_days = llm_log_days
        # Other daily deletions that run with this pass (servers gone past their retention).
        self._also: list[Callable[[], Awaitable[object]]] = []

    def also(self, deletion: Callable[[], Awaitable[object]]) -> None:
        """Run another deletion in every pass, after this one's."""
        self._also.append(deletion)

    @classmethod
    def from_settings(
        cls, sessions: async_sessionmaker[AsyncSession], clock: Clock, settings: Settings
    ) -> Retention:
        """The policy the operator configured."""
        return cls(
            sessions, clock, settings.history_retention_days, settings.llm_log_retention_days
        )

    async def enforce(self) -> RetentionReport:
        """One pass: delete expired history, decided approvals and model-call rows."""
        now = self._clock.now()
        messages = approvals = calls = 0
        async with self._sessions() as session, session.begin():
            if self.history_days:
                cutoff = now - timedelta(days=self.history_days)
                messages = _count(
                    await session.execute(
                        delete(ConversationMessage).where(ConversationMessage.created_at < cutoff)
                    )
                )
                approvals = _count(
                    await session.execute(
                        delete(ApprovalRequest).where(
                            ApprovalRequest.created_at < cutoff,
                            ApprovalRequest.status != Status.PENDING.value,
                        )
                    )
                )
                # Which message shows a call's card matters only while the call is in history.
                await session.execute(
                    delete(ToolCardMessage).where(ToolCardMessage.created_at < cutoff)
                )
            if self.llm_log_days:
                cutoff = now - timedelta(days=self.llm_log_days)
                calls = _count(
                    await session.execute(delete(LLMCall).where(LLMCall.started_at < cutoff))
                )
        report = RetentionReport(messages, approvals, calls)
        for deletion in self._also:
            await deletion()
        if messages or approvals or calls:
            log.info(
                "Retention deleted %d conversation messages, %d approval requests and %d model "
                "call rows",
                messages,
                approvals,
                calls,
            )
        return report

    async def run_scheduled(self) -> None:
        """The daily job: a failure is logged and retried the next day, never raised."""
        try:
            await self.enforce()
        except Exception:
            log.exception("The retention pass failed; it runs again tomorrow and at next start")


def _count(result: object) -> int:
    return int(getattr(result, "rowcount", 0) or 0)


def schedule_retention(scheduler: BaseScheduler, retention: Retention, settings: Settings) -> Job:
    """The daily retention pass at RETENTION_HOUR:RETENTION_MINUTE, bot time."""
    job: Job = scheduler.add_job(
        retention.run_scheduled,
        CronTrigger(hour=RETENTION_HOUR, minute=RETENTION_MINUTE, timezone=settings.timezone),
        id=RETENTION_JOB_ID,
        name="retention",
        replace_existing=True,
        # Missed while the bot was down: the pass at start covers it.
        misfire_grace_time=3600,
        coalesce=True,
        max_instances=1,
    )
    return job
