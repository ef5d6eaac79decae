"""Is the bot healthy? Named checks (gateway, database, model, scheduler), their report, and the
optional HTTP port for operators: `/healthz` (JSON, 503 when degraded) and `/metrics`."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from aiohttp import web

from bot.runtime.metrics import CONTENT_TYPE, Metrics

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Check:
    """One check's outcome: whether it passes and a short sentence for the operator."""

    ok: bool
    detail: str


Probe = Callable[[], Check]


@dataclass(frozen=True)
class Report:
    """Every check's outcome, in the order they were added."""

    checks: dict[str, Check]

    @property
    def ok(self) -> bool:
        """True when every check passes."""
        return all(check.ok for check in self.checks.values())

    @property
    def failing(self) -> list[str]:
        """The names of the checks that fail."""
        return [name for name, check in self.checks.items() if not check.ok]

    def as_json(self) -> dict[str, object]:
        """The body of /healthz."""
        return {
            "status": "ok" if self.ok else "degraded",
            "checks": {
                name: {"ok": check.ok, "detail": check.detail}
                for name, check in self.checks.items()
            },
        }


class HealthChecks:
    """The probes the composition root registers; each runs in microseconds, on the loop."""

    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics
        self._probes: dict[str, Probe] = {}

    def add(self, name: str, probe: Probe) -> None:
        """Register a probe under name (gateway, database, model, scheduler)."""
        self._probes[name] = probe

    def report(self) -> Report:
        """Run every probe now; a probe that raises counts as failing."""
        results: dict[str, Check] = {}
        for name, probe in self._probes.items():
            try:
                results[name] = probe()
            except Exception as exc:
                results[name] = Check(False, f"the check itself failed: {type(exc).__name__}")
            self._metrics.healthy.labels(check=name).set(1 if results[name].ok else 0)
        return Report(results)


def model_check(metrics: Metrics) -> Probe:
    """Passes unless the latest model call that says anything about the model failed."""

    def probe() -> Check:
        health = metrics.model_health
        if health.failing:
            return Check(False, f"the latest model call failed ({health.last_failure_kind})")
        if health.last_success is None:
            return Check(True, "no model call yet")
        return Check(True, "the latest model call succeeded")

    return probe


# Awaited before each scrape: gauges read from the database (reminders due) are set here.
Refresh = Callable[[], Awaitable[None]]


class PortTaken(OSError):
    """Another process listens on the health port."""


class HealthServer:
    """An aiohttp server in the bot process; off unless HEALTH_PORT is set."""

    def __init__(
        self,
        checks: HealthChecks,
        metrics: Metrics,
        host: str,
        port: int,
        refreshers: Sequence[Refresh] = (),
    ) -> None:
        self.checks = checks
        self.metrics = metrics
        self.host = host
        self.port = port
        self._refreshers = list(refreshers)
        self._runner: web.AppRunner | None = None

    def app(self) -> web.Application:
        """The web application (also used directly by tests)."""
        app = web.Application()
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/metrics", self._metrics)
        return app

    async def start(self) -> None:
        """Listen on host:port; PortTaken with a sentence when the port is in use."""
        runner = web.AppRunner(self.app(), access_log=None)
        await runner.setup()
        try:
            await web.TCPSite(runner, self.host, self.port).start()
        except OSError as exc:
            await runner.cleanup()
            raise PortTaken(
                exc.errno,
                f"HEALTH_PORT {self.port} on {self.host} is taken by another process "
                f"({exc.strerror or exc}): choose a free port or stop that process",
            ) from exc
        self._runner = runner
        log.info("Health and metrics on http://%s:%s/healthz and /metrics", self.host, self.port)

    async def stop(self) -> None:
        """Stop listening."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

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
