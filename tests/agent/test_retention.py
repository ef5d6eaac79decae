"""Retention deletes history and model-call rows older than their settings, daily and at start."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from sqlalchemy import select

from bot.agent.conversation import messages as m
from bot.agent.conversation.history import ConversationStore
from bot.agent.conversation.retention import RETENTION_JOB_ID, Retention, schedule_retention
from bot.runtime.clock import ManualClock
from bot.settings import Settings
from bot.storage import Database
from bot.storage.agent import ApprovalRequest, ConversationMessage, LLMCall


async def _call(database: Database, clock: ManualClock) -> None:
    async with database.sessions() as session, session.begin():
        session.add(LLMCall(model="m", purpose="agent", started_at=clock.now(), latency_ms=5.0))


async def _approval(database: Database, clock: ManualClock, status: str) -> None:
    async with database.sessions() as session, session.begin():
        session.add(
            ApprovalRequest(
                tool_call_id=status,
                tool_name="t",
                arguments="{}",
                requester_id=1,
                requester_name="hana",
                guild_id=None,
                channel_id=1,
                conversation_key="c1:u1",
                handler="general",
                status=status,
                created_at=clock.now(),
                expires_at=clock.now(),
            )
        )


async def test_history_older_than_its_days_is_deleted_and_newer_kept(
    database: Database, clock: ManualClock
) -> None:
    store = ConversationStore(database.sessions, clock)
    await store.append("c1:u1", m.UserMessage(text="old"), m.SummaryMessage(text="old summary"))
    await _approval(database, clock, "approved")
    await _approval(database, clock, "pending")
    clock.advance(timedelta(days=80))
    await store.append("c1:u1", m.UserMessage(text="new"))
    clock.advance(timedelta(days=11))

    report = await Retention(database.sessions, clock, history_days=90, llm_log_days=0).enforce()

    assert (report.messages, report.approvals) == (2, 1)
    assert [s.message for s in await store.all("c1:u1")] == [m.UserMessage(text="new")]
    async with database.sessions() as session:
        assert (await session.scalars(select(ApprovalRequest.status))).all() == ["pending"]


async def test_the_call_log_has_its_own_days(database: Database, clock: ManualClock) -> None:
    await _call(database, clock)
    store = ConversationStore(database.sessions, clock)
    await store.append("c1:u1", m.UserMessage(text="kept"))
    clock.advance(timedelta(days=31))
    await _call(database, clock)

    report = await Retention(database.sessions, clock, history_days=90, llm_log_days=30).enforce()

    assert (report.messages, report.llm_calls) == (0, 1)
    async with database.sessions() as session:
        assert len((await session.scalars(select(LLMCall))).all()) == 1
        assert len((await session.scalars(select(ConversationMessage))).all()) == 1


async def test_zero_days_keeps_everything(database: Database, clock: ManualClock) -> None:
    await _call(database, clock)
    await ConversationStore(database.sessions, clock).append("c1:u1", m.UserMessage(text="x"))
    clock.advance(timedelta(days=3650))

    report = await Retention(database.sessions, clock, history_days=0, llm_log_days=0).enforce()

    assert (report.messages, report.llm_calls) == (0, 0)


async def test_the_pass_is_scheduled_daily_in_the_bot_time_zone(
    database: Database, clock: ManualClock, make_settings: Callable[..., Settings]
) -> None:
    settings = make_settings(HISTORY_RETENTION_DAYS=7, LLM_LOG_RETENTION_DAYS=3)
    retention = Retention.from_settings(database.sessions, clock, settings)
    scheduler = AsyncIOScheduler(timezone=settings.timezone)

    job = schedule_retention(scheduler, retention, settings)

    assert (retention.history_days, retention.llm_log_days) == (7, 3)
    assert job.id == RETENTION_JOB_ID and isinstance(job.trigger, CronTrigger)
    assert str(job.trigger.timezone) == "Asia/Tokyo"
    assert {f.name: str(f) for f in job.trigger.fields}["hour"] == "4"
