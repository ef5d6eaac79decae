"""Composition root: builds engine, services, agent, scheduler and the Discord client, and
wires the few upward callbacks (post to Discord, ask for approval) between them."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from bot.agent import warmup
from bot.agent.approvals import ApprovalService
from bot.agent.history import ConversationStore
from bot.agent.llm import LLMClient
from bot.agent.loop import Agent
from bot.agent.memory import ConversationMemory
from bot.agent.models import ModelChoice
from bot.agent.retention import Retention
from bot.agent.tools import ToolRegistry
from bot.app_builder import AppBuilder, FeatureLifecycle
from bot.app_jobs import schedule_jobs
from bot.clock import Clock, SystemClock
from bot.deps import Deps, build_deps
from bot.discord_ui.builder import DiscordBuilder
from bot.discord_ui.client import OtomoBot, point_discord_py_at
from bot.discord_ui.commands import CoreCommands
from bot.discord_ui.memory_commands import MemoryCommands
from bot.discord_ui.model_commands import ModelCommands
from bot.discord_ui.posting import ChannelPoster
from bot.discord_ui.reminders import DiscordReminderSender
from bot.extools import ExternalToolsRuntime, build_external_tools
from bot.features import register_discord_parts, register_features
from bot.loop_watch import SlowStepWatch, watch_event_loop
from bot.redaction import remember_secrets
from bot.reminders.delivery import DeliveryEngine
from bot.reminders.scope import DISCORD_REMINDERS
from bot.settings import Settings
from bot.signals import stop_on_signals
from bot.storage import Database, create_database
from bot.storage.migrate import upgrade
from bot.storage.outage import health_of
from bot.users import UserPreferences

log = logging.getLogger(__name__)


@dataclass
class Core:
    """Everything below the Discord layer; shared by `run` and `console`."""

    settings: Settings
    clock: Clock
    database: Database
    preferences: UserPreferences
    registry: ToolRegistry
    llm: LLMClient
    approvals: ApprovalService
    store: ConversationStore
    agent: Agent
    scheduler: AsyncIOScheduler
    deps: Deps
    # What the features start and close with the bot (word pool flush, hot reload…).
    features: FeatureLifecycle
    retention: Retention
    extools: ExternalToolsRuntime
    models: ModelChoice
    loop_watch: SlowStepWatch | None = None
    # litellm's import and first calls, when still running on their threads (see build_core).
    warming: asyncio.Future[None] | None = None

    async def warmed(self) -> None:
        """Wait until the model client and the tokenizer are loaded, then settle the heap."""
        if self.warming is not None:
            warming, self.warming = self.warming, None
            await warming
            warmup.settle()

    async def close(self) -> None:
        """Stop the scheduler, let summaries finish, flush features, close the database."""
        if self.warming is not None:  # stopped before ready: let the import thread finish
            await asyncio.gather(self.warming, return_exceptions=True)
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)
        await self.extools.stop()
        await self.store.wait_for_summaries()
        await self.features.close()
        await self.database.dispose()
        if self.loop_watch is not None:
            self.loop_watch.close()
        warmup.unsettle()


async def build_core(
    settings: Settings, clock: Clock | None = None, *, warm_in_background: bool = False
) -> Core:
    """Create and migrate the database and build the agent with every feature's tools.

    With warm_in_background, litellm may still be loading when this returns: the Discord
    client then connects meanwhile, and `Core.warmed()` is awaited before the bot is ready.
    """
    clock = clock or SystemClock()
    remember_secrets(settings.secret_values())
    loop_watch = watch_event_loop(settings.loop_slow_step_ms)
    # Seconds of import and first-call set-up: on threads while the database is migrated,
    # before the gateway connects, never on the event loop later.
    preparing = asyncio.ensure_future(warmup.prepare(settings))
    database = create_database(settings.database_url)
    try:
        await upgrade(database)
    except BaseException:
        await asyncio.gather(preparing, return_exceptions=True)
        raise
    if not warm_in_background:
        await preparing
    preferences = UserPreferences(database.sessions, clock, settings.timezone)
    registry = ToolRegistry()
    models = ModelChoice(database.sessions, clock, settings)
    llm = LLMClient(settings, database.sessions, clock, model_source=models.current)
    deps = build_deps(settings, clock, database, llm)
    builder = AppBuilder(settings, registry)
    register_features(builder, deps)
    approvals = ApprovalService(
        database.sessions,
        clock,
        settings.approval_timeout_seconds,
        frozenset(settings.auto_approve_tools),
    )
    store = ConversationStore(database.sessions, clock, settings.history_max_messages)
    agent = Agent(
        settings=settings,
        clock=clock,
        sessions=database.sessions,
        llm=llm,
        registry=registry,
        approvals=approvals,
        store=store,
        handlers=builder.handlers(),
        deps=deps,
    )
    scheduler = AsyncIOScheduler(timezone=settings.timezone)
    core = Core(
        settings,
        clock,
        database,
        preferences,
        registry,
        llm,
        approvals,
        store,
        agent,
        scheduler,
        deps,
        builder.lifecycle(),
        Retention.from_settings(database.sessions, clock, settings),
        build_external_tools(settings, clock, database.sessions, registry, agent.handlers),
        models,
        loop_watch,
        preparing,
    )
    if not warm_in_background:
        await core.warmed()
    return core


class App:
    """The core plus the Discord client and the jobs that post through it, built in order."""

    def __init__(self, core: Core, parts: DiscordBuilder, **client_options: Any) -> None:
        self.core = core
        self.started = asyncio.Event()
        settings = core.settings
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
            **client_options,
        )
        sender = DiscordReminderSender(self.bot)
        shards = settings.shard_plan
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
        """Stop deliveries, then the core."""
        await self.reminders.stop()
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
    """Start everything and serve Discord until the process is told to stop."""
    token = settings.require_discord_token()
    app = await build_app(settings)
    app.core.features.start()
    app.core.scheduler.start()
    stop = stop_on_signals(app.bot.close) if install_signal_handlers else (lambda: None)
    try:
        async with app.bot:
            await app.bot.start(token)
    finally:
        stop()
        await app.close()
        log.info("Otomo stopped")
