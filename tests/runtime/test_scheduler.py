"""The jobs' scheduler: a job cancelled mid-run (a shutdown, a failed start) ends quietly."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime

import pytest
from apscheduler.events import EVENT_JOB_ERROR, EVENT_JOB_EXECUTED, JobExecutionEvent

from bot.runtime.scheduler import job_scheduler


async def test_a_job_cancelled_mid_query_by_a_shutdown_logs_no_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    scheduler = job_scheduler("Asia/Tokyo")
    querying = asyncio.Event()
    ended: asyncio.Future[JobExecutionEvent] = asyncio.get_running_loop().create_future()

    async def sweep() -> None:
        querying.set()
        await asyncio.Event().wait()  # a database query that has not answered yet

    scheduler.add_listener(ended.set_result, EVENT_JOB_EXECUTED | EVENT_JOB_ERROR)
    scheduler.add_job(sweep, "date", run_date=datetime.now(UTC), id="approvals.sweep")
    with caplog.at_level(logging.DEBUG):
        scheduler.start()
        await querying.wait()
        scheduler.shutdown(wait=False)
        await ended

    assert not [r for r in caplog.records if r.exc_info], [r.getMessage() for r in caplog.records]
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


async def test_a_job_that_fails_still_logs_its_traceback(caplog: pytest.LogCaptureFixture) -> None:
    scheduler = job_scheduler("Asia/Tokyo")
    ended: asyncio.Future[JobExecutionEvent] = asyncio.get_running_loop().create_future()

    async def broken() -> None:
        raise RuntimeError("the query failed")

    scheduler.add_listener(ended.set_result, EVENT_JOB_EXECUTED | EVENT_JOB_ERROR)
    scheduler.add_job(broken, "date", run_date=datetime.now(UTC), id="broken")
    with caplog.at_level(logging.INFO):
        scheduler.start()
        await ended
        scheduler.shutdown(wait=False)

    (failed,) = [r for r in caplog.records if r.exc_info]
    assert failed.levelno == logging.ERROR and "broken" in failed.getMessage()
