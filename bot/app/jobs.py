"""The scheduled jobs of the Discord bot, each run once per bot (by the holder of the lease)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta

from apscheduler.schedulers.base import BaseScheduler

from bot.agent.conversation.retention import RETENTION_JOB_ID, Retention, schedule_retention
from bot.discord_ui.builder import ScheduledPost
from bot.discord_ui.posting import ChannelPoster
from bot.runtime.message_claims import SWEEP_JOB_ID, SWEEP_SECONDS, MessageClaims
from bot.runtime.once_per_bot import BotLease, run_once_per_bot
from bot.servers.posts import POSTS_JOB_ID, TICK_SECONDS, PostFor, ScheduledPosts, run_quietly
from bot.settings import Settings
from bot.storage import Database

# How often overdue approvals are expired; the sweep is what ends an unanswered card.
APPROVAL_SWEEP_SECONDS = 10
APPROVAL_SWEEP_JOB_ID = "approvals.sweep"


def schedule_jobs(
    scheduler: BaseScheduler,
    settings: Settings,
    database: Database,
    *,
    retention: Retention,
    sweep_approvals: Callable[[], Awaitable[object]],
    posts: Sequence[ScheduledPost],
    poster: ChannelPoster,
    holder: str,
    server_posts: ScheduledPosts | None = None,
    posters: Mapping[str, Callable[[ChannelPoster], PostFor]] | None = None,
) -> None:
    """Approval and message-claim sweeps, retention and the features' scheduled posts; each
    runs in one process of the bot only (the holder of the jobs lease)."""
    schedule_retention(scheduler, retention, settings)
    scheduler.add_job(
        sweep_approvals,
        "interval",
        seconds=APPROVAL_SWEEP_SECONDS,
        id=APPROVAL_SWEEP_JOB_ID,
        coalesce=True,
        max_instances=1,
        replace_existing=True,
    )
    scheduler.add_job(
        MessageClaims(database.sessions, holder).sweep,
        "interval",
        seconds=SWEEP_SECONDS,
        id=SWEEP_JOB_ID,
        coalesce=True,
        max_instances=1,
        replace_existing=True,
    )
    for post in posts:
        post.schedule(scheduler, poster)
    periodic = [APPROVAL_SWEEP_JOB_ID, SWEEP_JOB_ID]
    if server_posts is not None and posters:
        made = {kind: make(poster) for kind, make in posters.items()}
        # Every minute, and once at start: a daily post due while the bot was down is caught
        # up within its grace.
        scheduler.add_job(
            run_quietly,
            "interval",
            seconds=TICK_SECONDS,
            args=[server_posts, made],
            id=POSTS_JOB_ID,
            next_run_time=datetime.now(UTC),
            coalesce=True,
            max_instances=1,
            replace_existing=True,
            misfire_grace_time=None,
        )
        periodic.append(POSTS_JOB_ID)
    lease = timedelta(seconds=settings.jobs_lease_seconds)
    run_once_per_bot(
        scheduler,
        BotLease(database.sessions, holder, ttl=lease, health=database.health),
        due_at_set_times=[*(post.job_id for post in posts), RETENTION_JOB_ID],
        periodic=periodic,
        renew_every=lease / 3,
    )
