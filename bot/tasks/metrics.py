"""The tasks' figures on /metrics: runs by outcome and how late they started."""

from __future__ import annotations

from datetime import timedelta

from prometheus_client import CollectorRegistry, Counter, Histogram

from bot.tasks.table import RunStatus

# Seconds: on time, a minute, the grace's range, beyond it.
LATENESS_BUCKETS = (1, 5, 30, 60, 300, 900, 1800, 3600, 6 * 3600, 86400)


class TaskMetrics:
    """Counts each finished run (the runner's observer)."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.runs = Counter(
            "otomo_task_runs",
            "Scheduled task runs finished, by outcome (on_time, late, skipped, failed)",
            ["outcome"],
            registry=registry,
        )
        self.lateness = Histogram(
            "otomo_task_lateness_seconds",
            "How long after its due time a task's run started",
            buckets=LATENESS_BUCKETS,
            registry=registry,
        )

    def __call__(self, status: RunStatus, late: timedelta) -> None:
        """One run ended with status, started late by late."""
        self.runs.labels(outcome=str(status)).inc()
        self.lateness.observe(max(0.0, late.total_seconds()))
