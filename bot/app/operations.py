"""The operator's side of a running bot: health checks and the health port, the gateway watch
(gauges and an idle presence when degraded), and the model check before ready."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from bot.agent.llm.model_check import ModelProblem, ask_model, check_configuration
from bot.app.core import Core
from bot.app.start_failures import ExitCode, StartupFailure
from bot.discord_ui.builder import Gauges
from bot.discord_ui.client import OtomoBot
from bot.discord_ui.operations import GatewayWatch, gateway_check
from bot.runtime.health import Check, HealthChecks, model_check

if TYPE_CHECKING:
    from bot.runtime.health_port import HealthServer

log = logging.getLogger(__name__)


class Operations:
    """What an operator watches; built with the App, started and stopped with it."""

    def __init__(
        self,
        core: Core,
        bot: OtomoBot,
        gauges: Sequence[Gauges],
        fail: Callable[[StartupFailure], None],
    ) -> None:
        self._core = core
        # What the features count (reminders due, the knowledge base's size), set at each scrape.
        self._gauges = list(gauges)
        self._fail = fail
        settings, metrics = core.settings, core.metrics
        database, scheduler = core.database.health, core.scheduler
        self.checks = HealthChecks(metrics)
        self.checks.add("gateway", lambda: gateway_check(bot))
        self.checks.add(
            "database",
            lambda: Check(False, "unreachable") if database.down else Check(True, "reachable"),
        )
        self.checks.add("model", model_check(metrics))
        self.checks.add(
            "scheduler",
            lambda: Check(True, "running") if scheduler.running else Check(False, "not running"),
        )
        self.watch = GatewayWatch(bot, self.checks, metrics)
        self.server: HealthServer | None = None
        if settings.health_port is not None:
            # Imported only with the port on: a bot without it loads no web server.
            from bot.runtime.health_port import HealthServer

            self.server = HealthServer(
                self.checks,
                metrics,
                settings.health_host,
                settings.health_port,
                refreshers=[self.refresh_gauges],
            )
        # The model check, running while the gateway connects (see check_model).
        self.model_checked: asyncio.Future[None] | None = None

    async def start_server(self) -> None:
        """Open the health port, if configured."""
        if self.server is None:
            return
        from bot.runtime.health_port import PortTaken

        try:
            await self.server.start()
        except PortTaken as exc:
            raise StartupFailure(ExitCode.HEALTH_PORT, str(exc.strerror)) from exc

    async def refresh_gauges(self) -> None:
        """The gauges the features set at each scrape (reminders due, the knowledge base)."""
        for gauges in self._gauges:
            await gauges()

    def check_model(self) -> None:
        """Check the model while the gateway connects; one that cannot answer stops the start."""
        settings, metrics = self._core.settings, self._core.metrics

        async def check() -> None:
            await asyncio.to_thread(check_configuration, settings)
            if settings.llm_check_on_start:
                answered = await ask_model(settings)
                metrics.model_call(answered.model, "check", answered.seconds)
                log.info("The model %s answered in %.1f s", answered.model, answered.seconds)

        def done(future: asyncio.Future[None]) -> None:
            if future.cancelled() or future.exception() is None:
                return
            problem = future.exception()
            if isinstance(problem, ModelProblem):
                code = ExitCode.MODEL_UNREACHABLE if problem.unreachable else ExitCode.MODEL_CONFIG
                self._fail(StartupFailure(code, problem.sentence))

        self.model_checked = asyncio.ensure_future(check())
        self.model_checked.add_done_callback(done)

    async def model_ready(self) -> bool:
        """Wait for the model check (when one runs); False when it failed (the start stops)."""
        if self.model_checked is None:
            return True
        try:
            await self.model_checked
        except Exception:
            return False  # said by check_model's callback, which stops the start
        return True

    async def stop(self) -> None:
        """Stop the watch, the model check and the health port."""
        await self.watch.stop()
        if self.model_checked is not None and not self.model_checked.done():
            self.model_checked.cancel()
        if self.server is not None:
            await self.server.stop()
