"""Health and metrics for operators: what the bot counts, its checks, and the HTTP port."""

from bot.health.metrics import Metrics
from bot.health.status import Check, HealthChecks, Report

__all__ = ["Check", "HealthChecks", "Metrics", "Report"]
