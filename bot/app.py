"""Composition root: builds engine, services, agent, scheduler and the Discord client, and
wires the few upward callbacks (post to Discord, ask for approval) between them."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from bot.agent.memory import ConversationMemory
from bot.agent.model_check import ModelProblem, ask_model, check_configuration
from bot.app_jobs import schedule_jobs
from bot.clock import Clock, SystemClock
from bot.core import Core, build_core
from bot.discord_ui.application import missing_intents
from bot.discord_ui.builder import DiscordBuilder
from bot.discord_ui.client import OtomoBot, point_discord_py_at
from bot.discord_ui.command_sync import CommandSync
from bot.discord_ui.commands import CoreCommands
from bot.discord_ui.memory_commands import MemoryCommands
from bot.discord_ui.model_commands import ModelCommands
from bot.discord_ui.operations import (
    GatewayWatch,
    MeteredReminders,
    gateway_check,
    rate_limit_trace,
)
from bot.discord_ui.posting import ChannelPoster
from bot.discord_ui.reminders import DiscordReminderSender
from bot.features import register_discord_parts
from bot.health.server import HealthServer, PortTaken
from bot.health.status import Check, HealthChecks, model_check
from bot.reminders.delivery import DeliveryEngine
from bot.reminders.scope import DISCORD_REMINDERS
from bot.settings import Settings
from bot.signals import stop_on_signals
from bot.startup.failures import ExitCode, StartupFailure, database_failure, discord_failure
from bot.startup.preflight import preflight
from bot.storage.outage import health_of

log = logging.getLogger(__name__)


class App:
    """The core plus the Discord client and the jobs that post through it, built in order."""

    def __init__(self, core: Core, parts: DiscordBuilder, **client_options: Any) -> None:
        self.core = core
        self.started = asyncio.Event()
        # Set when ready could not be reached; run_bot raises it once the client has closed.
        self.startup_failure: StartupFailure | None = None
        # The model check, running while the gateway connects (see check_model).
        self.model_checked: asyncio.Future[None] | None = None
        self._closing: asyncio.Future[None] | None = None
        settings = core.settings
        metrics = core.metrics
        # One process syncs slash commands: the one running shard 0 (the only one, usually).
        syncs = 0 in settings.shard_plan.ids
        client_options.setdefault("http_trace", rate_limit_trace(metrics))
        self.bot = OtomoBot(
            settings=settings,
            agent=core.agent,
            approvals=core.approvals,
            preferences=core.preferences,
            cogs=parts.commands,
            on_ready_hooks=[self.on_ready_once],
            on_connect_hooks=[self.on_connect_once],
            message_hooks=parts.message_hooks,
            reminder_actions=parts.reminder_actions,
            metrics=metrics,
            command_sync=(
                CommandSync(core.database.sessions, core.clock.now, settings.dev_guild_id)
                if syncs
                else None
            ),
            **client_options,
        )
        shards = settings.shard_plan
        sender = MeteredReminders(DiscordReminderSender(self.bot), metrics, shards, core.clock)
        self.reminders = DeliveryEngine(
            core.database.sessions,
            core.clock,
            core.scheduler,
            sender,
            sender.notify_owner,
            shards=shards,
            identity=shards.identity(),
            # Leases compare instants across processes: on the real clock, use the database's.
            database_time=isinstance(core.clock, SystemClock),
            scope=DISCORD_REMINDERS,
        )
        core.deps.due_times.listen(self.reminders.notify_changed)
        schedule_jobs(
            core.scheduler,
            settings,
            core.database.sessions,
            retention=core.retention,
            sweep_approvals=self.bot.approval_clicks.sweep,
            posts=parts.posts,
            poster=ChannelPoster(self.bot),
            holder=self.reminders.worker_id,
        )
        self.checks = HealthChecks(metrics)
        database = health_of(core.database.engine)
        self.checks.add("gateway", lambda: gateway_check(self.bot))
        self.checks.add(
            "database",
            lambda: Check(False, "unreachable") if database.down else Check(True, "reachable"),
        )
        self.checks.add("model", model_check(metrics))
        self.checks.add(
            "scheduler",
            lambda: (
                Check(True, "running") if core.scheduler.running else Check(False, "not running")
            ),
        )
        self.watch = GatewayWatch(self.bot, self.checks, metrics)
        self.health_server = (
            HealthServer(
                self.checks,
                metrics,
                settings.health_host,
                settings.health_port,
                refreshers=[self._refresh_gauges],
            )
            if settings.health_port is not None
            else None
        )

    async def _refresh_gauges(self) -> None:
        """The gauges read at each scrape: reminders due now, the knowledge base's size."""
        metrics = self.core.metrics
        index = self.core.deps.knowledge
        last = index.last_load
        metrics.knowledge_size(
            len(index.paths()), index.section_count(), last.seconds if last else None
        )
        metrics.reminders_due.set(await self.reminders.due_now())

    def check_model(self) -> None:
        """Check the model while the gateway connects; one that cannot answer stops the start."""
        settings = self.core.settings

        async def check() -> None:
            await asyncio.to_thread(check_configuration, settings)
            if settings.llm_check_on_start:
                answered = await ask_model(settings)
                self.core.metrics.model_call(
                    answered.model, "check", answered.seconds, error_kind=None
                )
                log.info("The model %s answered in %.1f s", answered.model, answered.seconds)

        def done(future: asyncio.Future[None]) -> None:
            if future.cancelled() or future.exception() is None:
                return
            problem = future.exception()
            if isinstance(problem, ModelProblem):
                code = ExitCode.MODEL_UNREACHABLE if problem.unreachable else ExitCode.MODEL_CONFIG
                self.fail(StartupFailure(code, problem.sentence))

        self.model_checked = asyncio.ensure_future(check())
        self.model_checked.add_done_callback(done)

    def fail(self, failure: StartupFailure) -> None:
        """Stop the start: close the client; run_bot raises the failure once it has closed."""
        if self.startup_failure is None:
            self.startup_failure = failure
            self._closing = asyncio.ensure_future(self.bot.close())

    async def on_connect_once(self) -> None:
        """The gateway connected: deliver overdue reminders now, not 2 s later at on_ready, and
        run the approved calls a stopped process left behind."""
        await self.reminders.start()
        try:
            await self.bot.approval_clicks.resume_left_behind()
        except Exception as exc:
            # The approval sweep resumes them once the database is back.
            if not health_of(self.core.database.engine).noticed(exc):
                raise

    async def on_ready_once(self) -> None:
        """First connection: expire stale approval cards, start the rest.

        Ready means able to answer at full speed: litellm, whose import overlapped the
        connection, must be loaded by then.
        """
        try:
            await self.core.warmed()
        except Exception as exc:
            # Without its model client the bot could answer no one: stop, and say why.
            failure = StartupFailure(
                ExitCode.MODEL_CLIENT,
                f"the model client (litellm) could not be loaded: {type(exc).__name__}: {exc}",
            )
            failure.__cause__ = exc
            self.fail(failure)
            return
        if self.model_checked is not None:
            try:
                await self.model_checked
            except Exception:
                return  # said by check_model's callback, which stops the start
        try:
            await self.core.extools.start()
            await self._enforce_retention()
            try:
                await self.bot.approval_clicks.expire_overdue_cards()
            except Exception as exc:
                # The sweep every few seconds expires them once the database is back.
                if not health_of(self.core.database.engine).noticed(exc):
                    raise
        finally:
            self.started.set()
            if self.core.loop_watch is not None:
                self.core.loop_watch.arm()
            self.watch.start()
            log.info("Otomo is ready")

    async def _enforce_retention(self) -> None:
        # A pass missed while the bot was down runs now; a failure must not keep it offline.
        try:
            await self.core.retention.enforce()
        except Exception as exc:
            if health_of(self.core.database.engine).noticed(exc):
                log.info("The retention pass at start waits for the database: it runs at 04:30")
                return
            log.exception("The retention pass at start failed; it runs again at 04:30")

    async def close(self) -> None:
        """Stop deliveries, the health port, then the core."""
        await self.watch.stop()
        if self.model_checked is not None and not self.model_checked.done():
            self.model_checked.cancel()
        await self.reminders.stop()
        if self.health_server is not None:
            await self.health_server.stop()
        await self.core.close()


def discord_parts(core: Core) -> DiscordBuilder:
    """The bot's own slash commands, then every feature's Discord part."""
    settings = core.settings
    parts = DiscordBuilder(settings, core.clock, core.preferences)
    parts.add_commands(
        lambda client: CoreCommands(
            client,
            core.approvals,
            settings.tavily_api_key is not None,
            core.extools,
            models=core.models,
            sees_images=core.llm.supports_vision,
        )
    )
    parts.add_commands(lambda client: ModelCommands(core.models, core.llm.supports_vision))
    parts.add_commands(
        lambda client: MemoryCommands(
            client,
            ConversationMemory(core.database.sessions, core.approvals),
            core.database.sessions,
            core.preferences,
            core.clock.now,
            settings.history_retention_days,
        )
    )
    register_discord_parts(parts, core.deps)
    return parts


async def build_app(settings: Settings, clock: Clock | None = None, **client_options: Any) -> App:
    """Build the core and the Discord client, and schedule every job (not started yet)."""
    point_discord_py_at(settings.discord_api_base, settings.discord_gateway_url)
    # The gateway connection and guild stream overlap litellm's import (seconds of CPU).
    core = await build_core(settings, clock, warm_in_background=True)
    return App(core, discord_parts(core), **client_options)


async def run_bot(settings: Settings, *, install_signal_handlers: bool = True) -> None:
    """Start everything and serve Discord until the process is told to stop.

    Every failure before ready is a StartupFailure with a sentence and an exit code.
    """
    token = settings.require_discord_token()
    await preflight(settings)
    try:
        app = await build_app(settings)
    except Exception as exc:
        failure = database_failure(exc, settings.database_url)
        if failure is None:
            raise
        raise failure from exc
    stop: Callable[[], None] = _nothing
    try:
        app.check_model()
        if app.health_server is not None:
            try:
                await app.health_server.start()
            except PortTaken as exc:
                raise StartupFailure(ExitCode.HEALTH_PORT, str(exc.strerror)) from exc
        app.core.features.start()
        app.core.scheduler.start()
        if install_signal_handlers:
            stop = stop_on_signals(app.bot.close)
        async with app.bot:
            try:
                await app.bot.start(token)
            except Exception as exc:
                if app.startup_failure is not None:
                    raise app.startup_failure from exc
                failure = discord_failure(exc, await _intents_hint(exc, settings, token))
                if failure is None:
                    raise
                raise failure from exc
        if app.startup_failure is not None:
            raise app.startup_failure
    finally:
        stop()
        await app.close()
        log.info("Otomo stopped")


def _nothing() -> None:
    """No signal handlers to remove."""


async def _intents_hint(exc: Exception, settings: Settings, token: str) -> str | None:
    """Which privileged-intent toggles are off, read from the application's flags."""
    import discord

    if not isinstance(exc, discord.PrivilegedIntentsRequired):
        return None
    http = discord.http.HTTPClient(asyncio.get_running_loop())
    try:
        await http.static_login(token)
        app_info: Any = await http.application_info()
        missing = missing_intents(int(app_info.get("flags") or 0))
    except Exception:
        return None
    finally:
        await http.close()
    return " and ".join(missing) or None
