"""Composition root: builds engine, services, agent, scheduler and the Discord client, and
wires the few upward callbacks (post to Discord, ask for approval) between them."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from functools import partial
from typing import Any

from bot.agent.conversation.memory import ConversationMemory
from bot.agent.llm.usage import usage_by_day
from bot.app.core import Core, build_core
from bot.app.features import ROUTER, register_discord_parts
from bot.app.jobs import schedule_jobs
from bot.app.operations import Operations
from bot.app.preflight import preflight
from bot.app.start_failures import (
    ExitCode,
    StartupFailure,
    database_failure,
    discord_failure,
    intents_hint,
)
from bot.discord_ui.answering.asking import AskAboutMessage
from bot.discord_ui.answering.conversation import Conversations, Staff
from bot.discord_ui.answering.live import BackgroundTasks, LiveRuns
from bot.discord_ui.answering.stopping import StopControl
from bot.discord_ui.answering.threads import Threads
from bot.discord_ui.builder import DiscordBuilder
from bot.discord_ui.cards.decisions import ApprovalDesk
from bot.discord_ui.cards.owner import CardOwner
from bot.discord_ui.client import OtomoBot, point_discord_py_at
from bot.discord_ui.commands.core import CoreCommands
from bot.discord_ui.commands.memory import MemoryCommands
from bot.discord_ui.commands.model import ModelCommands
from bot.discord_ui.commands.server_settings import ServerSettingsCommands
from bot.discord_ui.commands.sync import CommandSync
from bot.discord_ui.operations import rate_limit_trace
from bot.discord_ui.posting import ChannelPoster
from bot.discord_ui.welcome import Arrivals
from bot.runtime.clock import Clock
from bot.runtime.message_claims import MessageClaims
from bot.runtime.signals import stop_on_signals
from bot.settings import Settings
from bot.storage.command_syncs import CommandSyncs

log = logging.getLogger(__name__)


class App:
    """The core plus the Discord client and the jobs that post through it, built in order."""

    def __init__(self, core: Core, parts: DiscordBuilder, **client_options: Any) -> None:
        self.core = core
        self.started = asyncio.Event()
        # Set when ready could not be reached; run_bot raises it once the client has closed.
        self.startup_failure: StartupFailure | None = None
        self._closing: asyncio.Future[None] | None = None
        settings = core.settings
        metrics = core.metrics
        # One process syncs slash commands: the one running shard 0 (the only one, usually).
        syncs = 0 in settings.shard_plan.ids
        client_options.setdefault("http_trace", rate_limit_trace(metrics))
        runs, tasks = LiveRuns(), BackgroundTasks()
        self.bot = OtomoBot(
            settings=settings,
            database_health=core.database.health,
            permissions=core.permissions,
            runs=runs,
            tasks=tasks,
            cogs=parts.commands,
            on_ready_hooks=[self.on_ready_once],
            on_connect_hooks=[self.on_connect_once],
            message_hooks=parts.message_hooks,
            buttons=parts.buttons,
            feature_clicks=parts.clicks,
            arrivals=Arrivals(core.membership),
            command_sync=(
                CommandSync(
                    CommandSyncs(core.database.sessions), core.clock.now, settings.dev_guild_id
                )
                if syncs
                else None
            ),
            **client_options,
        )
        staff = Staff(
            settings=settings,
            agent=core.agent,
            approvals=core.approvals,
            preferences=core.preferences,
            cards=CardOwner(self.bot.get_partial_messageable, core.agent.records, core.agent.clock),
            runs=runs,
            tasks=tasks,
            health=core.database.health,
            permissions=core.permissions,
            threads=Threads(core.threads, core.servers, core.clock.now),
            router=ROUTER,
            metrics=metrics,
            servers=core.servers,
            budgets=core.budgets,
            claims=MessageClaims(
                core.agent.sessions,
                core.agent.records.executor,
                clock=core.agent.clock,
                health=core.database.health,
            ),
            listener=parts.listener,
        )
        self.bot.answer_with(
            staff,
            Conversations(staff, self.bot),
            ApprovalDesk(staff, self.bot.get_partial_messageable),
            StopControl(runs, core.permissions),
        )
        # The features' background services (the reminders' delivery engine), by name.
        self.connected = {name: make(self.bot) for name, make in parts.connected.items()}
        schedule_jobs(
            core.scheduler,
            settings,
            core.database,
            retention=core.retention,
            sweep_approvals=self.bot.approval_clicks.sweep,
            posts=parts.posts,
            server_posts=parts.scheduled_posts(),
            posters=parts.server_posts,
            poster=ChannelPoster(self.bot),
            # This process, as the holder of the jobs lease and of the messages it sweeps.
            holder=core.agent.records.executor,
        )
        gauges = [*(p.gauges for p in self.connected.values() if p.gauges), *parts.gauges]
        self.operations = Operations(core, self.bot, gauges, self.fail)

    def fail(self, failure: StartupFailure) -> None:
        """Stop the start: close the client; run_bot raises the failure once it has closed."""
        if self.startup_failure is None:
            self.startup_failure = failure
            self._closing = asyncio.ensure_future(self.bot.close())

    async def on_connect_once(self) -> None:
        """The gateway connected: start the features' background services (overdue reminders
        are delivered now, not 2 s later at on_ready), and run the approved calls a stopped
        process left behind."""
        for part in self.connected.values():
            await part.service.start()
        try:
            # Calls this process was running when it stopped end truthfully, cards included;
            # before the resumes start, so none of them is mistaken for a call left open.
            await self.bot.approval_clicks.recover(everyone=False)
            await self.bot.approval_clicks.resume_left_behind()
        except Exception as exc:
            # The approval sweep resumes them once the database is back.
            if not self.core.database.health.noticed(exc):
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
        if not await self.operations.model_ready():
            return
        try:
            await self.core.extools.start()
            await self._enforce_retention()
            try:
                await self.bot.approval_clicks.expire_overdue_cards()
            except Exception as exc:
                # The sweep every few seconds expires them once the database is back.
                if not self.core.database.health.noticed(exc):
                    raise
        finally:
            self.started.set()
            if self.core.loop_watch is not None:
                self.core.loop_watch.arm()
            self.operations.watch.start()
            log.info("Otomo is ready")

    async def _enforce_retention(self) -> None:
        # A pass missed while the bot was down runs now; a failure must not keep it offline.
        try:
            await self.core.retention.enforce()
        except Exception as exc:
            if self.core.database.health.noticed(exc):
                log.info("The retention pass at start waits for the database: it runs at 04:30")
                return
            log.exception("The retention pass at start failed; it runs again at 04:30")

    async def close(self) -> None:
        """Stop the health port, the features' background services, then the core."""
        await self.operations.stop()
        for part in reversed(self.connected.values()):
            await part.service.stop()
        await self.core.close()


def discord_parts(core: Core) -> DiscordBuilder:
    """The bot's own slash commands, then every feature's Discord part."""
    settings = core.settings
    parts = DiscordBuilder(
        settings,
        core.clock,
        core.preferences,
        core.permissions,
        core.servers,
        agent=core.agent,
        scheduler=core.scheduler,
        database=core.database,
        budgets=core.budgets,
        membership=core.membership,
        metrics=core.metrics,
    )
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
    parts.add_commands(
        lambda client: ModelCommands(core.models, core.llm.supports_vision, core.permissions)
    )
    parts.add_commands(
        lambda client: MemoryCommands(
            client,
            ConversationMemory(core.database.sessions, core.approvals),
            partial(usage_by_day, core.database.sessions),
            core.preferences,
            core.clock.now,
            settings.history_retention_days,
            core.budgets,
        )
    )
    parts.add_commands(
        lambda client: ServerSettingsCommands(client, core.servers, core.permissions)
    )
    parts.add_commands(lambda client: AskAboutMessage(client, client.staff))
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
        app.operations.check_model()
        await app.operations.start_server()
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
                failure = discord_failure(exc, await intents_hint(exc, token))
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
