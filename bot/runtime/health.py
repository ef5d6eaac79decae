"""Is the bot healthy? Named checks (gateway, database, model, scheduler) and their report; the
optional HTTP port that serves them is `health_port.py`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot.runtime.metrics import Metrics


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
