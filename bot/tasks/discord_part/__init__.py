"""The tasks feature's Discord part: runs due tasks in every process (claims keep each run to
one), posts their answers and draws their cards; forgets a departed server's tasks."""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime, timedelta
from typing import Any

import discord
from apscheduler.jobstores.base import JobLookupError
from discord import app_commands
from discord.ext import commands

from bot.discord_ui.builder import DiscordBuilder
from bot.discord_ui.client import OtomoBot
from bot.runtime.clock import SystemClock
from bot.runtime.pacing import SendPacer
from bot.tasks import words
from bot.tasks.discord_part.panel import show_tasks
from bot.tasks.discord_part.posting import DiscordTaskPoster
from bot.tasks.discord_part.runs import AgentTaskRuns
from bot.tasks.ledger import TaskLedger
from bot.tasks.metrics import TaskMetrics
from bot.tasks.runner import TaskRunner
from bot.tasks.server_settings import TASKS_ENABLED
from bot.tasks.service import TaskService, TaskView
from bot.tasks.settings import TaskSettings

TICK_JOB_ID = "tasks.tick"


class TaskJobs(commands.Cog):
    """Every minute (and at start), claim the due runs and carry them out."""

    def __init__(self, client: OtomoBot, parts: DiscordBuilder) -> None:
        assert parts.agent is not None and parts.database is not None
        settings = parts.settings
        limits = settings.section(TaskSettings)
        self._scheduler = parts.scheduler
        self.service = TaskService(
            parts.database.sessions,
            parts.clock,
            max_per_server=limits.max_per_server,
            min_interval_minutes=limits.min_interval_minutes,
        )
        poster = DiscordTaskPoster(client, SendPacer(settings.shard_plan.request_budget()))
        budgets, servers = parts.budgets, parts.servers

        async def gate(task: TaskView) -> str | None:
            # A run counts against the server's and its owner's daily budgets.
            if task.guild_id is None:
                return None
            if not servers.config(task.guild_id).get(TASKS_ENABLED):
                return words.TASKS_OFF(task.language)
            spent = None if budgets is None else await budgets.spent(task.guild_id, task.owner_id)
            return None if spent is None else spent.sentence(task.language)

        self.runner = TaskRunner(
            TaskLedger(
                parts.database.sessions,
                lease=timedelta(seconds=limits.run_lease_seconds),
                # Leases compare instants across processes: on the real clock, the database's.
                database_time=isinstance(parts.clock, SystemClock),
            ),
            parts.clock,
            AgentTaskRuns(parts.agent, client.staff, client),
            poster,
            grace=timedelta(minutes=limits.grace_minutes),
            concurrency=limits.max_concurrent_runs,
            notify_owner=poster.tell_owner,
            gate=gate,
            observe=None if parts.metrics is None else TaskMetrics(parts.metrics.registry),
        )
        self._client = client
        self._permissions = parts.permissions

    async def cog_load(self) -> None:
        """Join the /otomo group with /otomo tasks, and arm the minute tick (the first at
        once: runs due while the bot was down)."""
        group = self._client.tree.get_command("otomo")
        if isinstance(group, app_commands.Group):
            command: app_commands.Command[Any, ..., None] = app_commands.Command(
                name="tasks", description=words.TASKS_COMMAND.en, callback=self.tasks
            )
            group.add_command(command)
        if self._scheduler is not None:
            self._scheduler.add_job(
                self.runner.run_due,
                "cron",
                second=0,
                kwargs={"wait": False},
                next_run_time=datetime.now(UTC),
                id=TICK_JOB_ID,
                replace_existing=True,
                coalesce=True,
                max_instances=1,
                misfire_grace_time=None,
            )

    async def tasks(self, interaction: discord.Interaction[Any]) -> None:
        """This server's tasks (your own in DMs), with what you may do to them."""
        await show_tasks(interaction, self.service, self.runner, self._permissions)

    async def cog_unload(self) -> None:
        """Stop ticking and let runs in flight end."""
        if self._scheduler is not None:
            with contextlib.suppress(JobLookupError):
                self._scheduler.remove_job(TICK_JOB_ID)
        await self.runner.stop()


def register(app: DiscordBuilder, deps: object) -> None:
    """Run due tasks in this process, and forget a departed server's tasks."""
    app.add_commands(lambda client: TaskJobs(client, app))
    if app.membership is not None and app.database is not None:
        limits = app.settings.section(TaskSettings)
        service = TaskService(
            app.database.sessions,
            app.clock,
            max_per_server=limits.max_per_server,
            min_interval_minutes=limits.min_interval_minutes,
        )
        app.membership.also_forget(service.forget_server)
