"""The scheduled jobs that post through the Discord client, each run once per bot."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from bot.agent.retention import RETENTION_JOB_ID, schedule_retention
from bot.chat import Tip, schedule_tips
from bot.chat.tips import TIPS_JOB_ID
from bot.discord_ui.client import OtomoBot
from bot.discord_ui.posting import ChannelPoster
from bot.once_per_bot import BotLease, run_once_per_bot
from bot.weather import DailyWeatherReport, schedule_daily_weather
from bot.weather.daily import DAILY_WEATHER_JOB_ID

if TYPE_CHECKING:
    from bot.app import Core

# How often overdue approvals are expired; the sweep is what ends an unanswered card.
APPROVAL_SWEEP_SECONDS = 10
APPROVAL_SWEEP_JOB_ID = "approvals.sweep"


def schedule_jobs(core: Core, bot: OtomoBot, *, holder: str) -> None:
    """Approval sweeps, retention, the daily weather post and the tips, posting through the
    bot; each runs in one process of the bot only (the holder of the jobs lease)."""
    settings = core.settings
    features = core.features
    poster = ChannelPoster(bot)

    async def sweep_approvals() -> None:
        await bot.approval_clicks.expire_overdue_cards()

    schedule_retention(core.scheduler, core.retention, settings)
    core.scheduler.add_job(
        sweep_approvals,
        "interval",
        seconds=APPROVAL_SWEEP_SECONDS,
        id=APPROVAL_SWEEP_JOB_ID,
        coalesce=True,
        max_instances=1,
        replace_existing=True,
    )
    weather_channel = settings.weather_notify_channel_id

    async def post_weather(report: DailyWeatherReport) -> None:
        # Scheduled only when the channel is set (schedule_daily_weather checks).
        assert weather_channel is not None
        await poster.post_weather(weather_channel, report)

    # Called even when unconfigured: it warns about a channel without a time, or the reverse.
    schedule_daily_weather(core.scheduler, post_weather, settings, core.clock, features.weather)
    if settings.tips_channel_id is not None:
        tips_channel = settings.tips_channel_id

        async def post_tip(tip: Tip) -> None:
            await poster.post_tip(tips_channel, tip)

        schedule_tips(core.scheduler, features.tips, post_tip, settings)
    lease = timedelta(seconds=settings.jobs_lease_seconds)
    run_once_per_bot(
        core.scheduler,
        BotLease(core.database.sessions, holder, ttl=lease),
        due_at_set_times=[DAILY_WEATHER_JOB_ID, TIPS_JOB_ID, RETENTION_JOB_ID],
        periodic=[APPROVAL_SWEEP_JOB_ID],
        renew_every=lease / 3,
    )
