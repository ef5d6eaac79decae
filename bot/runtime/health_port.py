"""The optional HTTP port for operators: `/healthz` (JSON, 503 when degraded) and `/metrics`.

Imported only when HEALTH_PORT is set: a bot without the port loads no web server.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence

from aiohttp import web

from bot.runtime.health import HealthChecks
from bot.runtime.metrics import CONTENT_TYPE, Metrics
from bot.runtime.web_server import WebServer

log = logging.getLogger(__name__)


# Awaited before each scrape: gauges read from the database (reminders due) are set here.
Refresh = Callable[[], Awaitable[None]]


class PortTaken(OSError):
    """Another process listens on the health port."""


class HealthServer(WebServer):
    """An aiohttp server in the bot process; off unless HEALTH_PORT is set."""

    def __init__(
        self,
        checks: HealthChecks,
        metrics: Metrics,
        host: str,
        port: int,
        refreshers: Sequence[Refresh] = (),
    ) -> None:
        super().__init__(host, port)
        self.checks = checks
        self.metrics = metrics
        self._refreshers = list(refreshers)

    def app(self) -> web.Application:
        """The web application (also used directly by tests)."""
        app = web.Application()
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/metrics", self._metrics)
        return app

    async def start(self) -> None:
        """Listen on host:port; PortTaken with a sentence when the port is in use."""
        try:
            await self.listen()
        except OSError as exc:
            raise PortTaken(
                exc.errno,
                f"HEALTH_PORT {self.port} on {self.host} is taken by another process "
                f"({exc.strerror or exc}): choose a free port or stop that process",
            ) from exc
        log.info("Health and metrics on http://%s:%s/healthz and /metrics", self.host, self.port)

    async def _healthz(self, request: web.Request) -> web.Response:
        report = self.checks.report()
        return web.json_response(report.as_json(), status=200 if report.ok else 503)

    async def _metrics(self, request: web.Request) -> web.Response:
        self.checks.report()  # keeps otomo_healthy current
        for refresh in self._refreshers:
            try:
                await refresh()
            except Exception as exc:
                # A scrape during a database outage still shows everything else.
                log.debug("A metrics refresh failed: %s", exc)
        return web.Response(body=self.metrics.exposition(), headers={"Content-Type": CONTENT_TYPE})
