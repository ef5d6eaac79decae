"""The core below the Discord layer (database, services, agent, scheduler) for run and console."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from bot.agent import warmup
from bot.agent.approvals.service import ApprovalService
from bot.agent.conversation.history import ConversationStore
from bot.agent.conversation.retention import Retention
from bot.agent.llm.client import LLMClient
from bot.agent.llm.models import ModelChoice
from bot.agent.loop import Agent
from bot.agent.tools import ToolRegistry
from bot.app.features import register_features
from bot.app.services import Deps, build_deps
from bot.extools import ExternalToolsRuntime, build_external_tools
from bot.handlers.builder import AppBuilder, FeatureLifecycle
from bot.members.permissions import Permissions
from bot.members.preferences import UserPreferences
from bot.runtime.clock import Clock, SystemClock
from bot.runtime.metrics import Metrics
from bot.runtime.redaction import remember_secrets
from bot.runtime.scheduler import job_scheduler
from bot.runtime.worker import SlowStepWatch, watch_event_loop
from bot.servers.budgets import Budgets
from bot.servers.config import defaults_of
from bot.servers.directory import ServerDirectory
from bot.servers.membership import Membership
from bot.settings import Settings
from bot.storage import Database, create_database
from bot.storage.migrate import upgrade
from bot.storage.threads import BotThreads

SETTINGS_REFRESH_JOB_ID = "servers.refresh"


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
    # Who may do what; one set of rules for every command, button and tool.
    permissions: Permissions
    metrics: Metrics
    # Each server's settings (refreshed from the database) and its budgets.
    servers: ServerDirectory
    budgets: Budgets
    # The servers joined and left (their data is deleted by the retention pass).
    membership: Membership
    # The threads the bot opened for conversations.
    threads: BotThreads
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
    settings: Settings,
    clock: Clock | None = None,
    *,
    warm_in_background: bool = False,
    identity: str | None = None,
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
    servers = ServerDirectory(database.sessions, clock, defaults_of(settings))
    await servers.refresh()
    budgets = Budgets(database.sessions, clock, servers)
    registry = ToolRegistry(enabled=servers.tool_enabled)
    metrics = Metrics()
    models = ModelChoice(database.sessions, clock, settings)
    llm = LLMClient(
        settings,
        database.sessions,
        clock,
        model_source=models.current,
        metrics=metrics,
        budgets=budgets,
    )
    deps = build_deps(settings, clock, database, llm, servers)
    builder = AppBuilder(settings, registry)
    register_features(builder, deps)
    approvals = ApprovalService(
        database.sessions,
        clock,
        settings.approval_timeout_seconds,
        lambda guild: servers.config(guild).auto_approve_tools,
        metrics=metrics,
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
        # Stable across restarts (the shards it runs), plus this start: after a crash the
        # next start of the same process finds what its earlier life left open.
        executor=f"{identity or settings.shard_plan.identity()}/{uuid.uuid4().hex[:8]}",
    )
    membership = Membership(
        database.sessions,
        clock,
        servers,
        settings.server_data_retention_days,
        knowledge_dir=settings.knowledge_base_dir,
        tables=builder.server_tables(),
    )
    retention = Retention.from_settings(database.sessions, clock, settings)
    retention.also(membership.forget_departed)
    scheduler = job_scheduler(settings.timezone)
    # A change made through another process applies here within this many seconds.
    scheduler.add_job(
        servers.refresh_quietly,
        "interval",
        seconds=settings.server_settings_refresh_seconds,
        id=SETTINGS_REFRESH_JOB_ID,
        coalesce=True,
        max_instances=1,
        replace_existing=True,
    )
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
        retention,
        build_external_tools(
            settings,
            clock,
            database.sessions,
            registry,
            agent.handlers,
            database.health,
            grants=approvals,
        ),
        models,
        Permissions.per_server(servers, settings),
        metrics,
        servers,
        budgets,
        membership,
        BotThreads(database.sessions),
        loop_watch,
        preparing,
    )
    if not warm_in_background:
        await core.warmed()
    return core
