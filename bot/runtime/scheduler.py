"""The scheduler every process runs its jobs on (APScheduler 3 on the event loop).

APScheduler logs any exception a coroutine job ends with, a cancellation included: a job that
was mid-query when a failed start or a shutdown cancelled it would print a traceback at ERROR
for what is the normal end of a stopping bot. Here a cancelled job ends with one debug line.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import tzinfo
from typing import Any

from apscheduler.executors.asyncio import AsyncIOExecutor
from apscheduler.schedulers.asyncio import AsyncIOScheduler


class _CancelledQuietly(logging.Filter):
    """Turns "Job … raised an exception" for a cancellation into a debug line."""

    def filter(self, record: logging.LogRecord) -> bool:
        failure = record.exc_info[1] if record.exc_info else None
        if isinstance(failure, asyncio.CancelledError):
            record.exc_info = record.exc_text = None
            record.msg = 'Job "%s" was cancelled (the bot is stopping)'
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            # The record was made at ERROR: let it through only where debug lines are shown.
            return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)
        return True


class _JobExecutor(AsyncIOExecutor):  # type: ignore[misc]  # apscheduler ships no types
    """APScheduler's asyncio executor, whose cancelled jobs end quietly."""

    def start(self, scheduler: Any, alias: str) -> None:
        super().start(scheduler, alias)
        if not any(isinstance(f, _CancelledQuietly) for f in self._logger.filters):
            self._logger.addFilter(_CancelledQuietly())


def job_scheduler(timezone: tzinfo | str) -> AsyncIOScheduler:
    """A scheduler for the bot's jobs, on the running event loop."""
    return AsyncIOScheduler(timezone=timezone, executors={"default": _JobExecutor()})
