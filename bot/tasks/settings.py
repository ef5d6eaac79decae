"""The tasks feature's environment settings (the operator's limits; see .env.example)."""

from __future__ import annotations

from pydantic import Field

from bot.settings import SettingsSection


class TaskSettings(SettingsSection):
    """Scheduled tasks: lateness allowed, runs at once, tasks per server, shortest repeat, and
    how long a stopped process keeps a run."""

    grace_minutes: int = Field(30, ge=0, le=1440, alias="TASK_GRACE_MINUTES")
    max_concurrent_runs: int = Field(4, ge=1, le=256, alias="TASK_MAX_CONCURRENT_RUNS")
    max_per_server: int = Field(20, ge=0, le=1000, alias="TASK_MAX_PER_SERVER")
    min_interval_minutes: int = Field(60, ge=1, le=10080, alias="TASK_MIN_INTERVAL_MINUTES")
    run_lease_seconds: int = Field(120, ge=5, le=3600, alias="TASK_RUN_LEASE_SECONDS")
