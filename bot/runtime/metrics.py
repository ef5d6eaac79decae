"""What an operator graphs: the bot's counters, gauges and histograms in Prometheus's model.

One `Metrics` per bot process, with its own registry (so two bots in one test process never
share a counter). The layers below the composition root record into it through the few typed
methods here; `/metrics` (see `bot.runtime.health`) exposes it in the text format.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

# Content-Type of the text exposition format Prometheus scrapes.
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

# Model failures that say the model cannot answer anyone (not one bad request).
UNAVAILABLE_KINDS = frozenset({"auth", "unreachable", "timeout", "server_error", "model_not_found"})

# Seconds: a reply streams in about one; a reminder may be hours late after an outage.
_REPLY_BUCKETS = (0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120)
_MODEL_BUCKETS = (0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60)
_LATENESS_BUCKETS = (0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600, 6 * 3600, 86400)


@dataclass
class ModelHealth:
    """When the model last answered and last failed for a reason that affects everyone."""

    last_success: float | None = None
    last_failure: float | None = None
    last_failure_kind: str | None = None

    @property
    def failing(self) -> bool:
        """True when the latest call that told us anything was a failure."""
        if self.last_failure is None:
            return False
        return self.last_success is None or self.last_failure > self.last_success


class Metrics:
    """Every metric of one bot process; `shard` labels say which shard saw the event."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.model_health = ModelHealth()
        r = self.registry
        self.mentions = Counter(
            "otomo_mentions", "Messages addressed to the bot", ["shard"], registry=r
        )
        self.replies = Counter(
            "otomo_replies",
            "Answers finished, by outcome (answered, failed, refused)",
            ["shard", "outcome"],
            registry=r,
        )
        self.reply_seconds = Histogram(
            "otomo_reply_seconds",
            "From the mention to the end of the answer",
            ["shard"],
            buckets=_REPLY_BUCKETS,
            registry=r,
        )
        self.model_calls = Counter(
            "otomo_model_calls",
            "Model calls, by model and purpose",
            ["model", "purpose"],
            registry=r,
        )
        self.model_errors = Counter(
            "otomo_model_errors",
            "Failed model calls, by model and kind",
            ["model", "kind"],
            registry=r,
        )
        self.model_tokens = Counter(
            "otomo_model_tokens",
            "Tokens spent, by model and direction (prompt, completion)",
            ["model", "direction"],
            registry=r,
        )
        self.model_seconds = Histogram(
            "otomo_model_call_seconds",
            "Duration of one model call",
            ["model"],
            buckets=_MODEL_BUCKETS,
            registry=r,
        )
        self.approvals = Counter(
            "otomo_approvals",
            "Approval decisions, by outcome (approved, always, rejected, expired)",
            ["outcome"],
            registry=r,
        )
        self.reminders_due = Gauge(
            "otomo_reminders_due",
            "Reminders of this process that are due and not yet delivered",
            registry=r,
        )
        self.reminders_delivered = Counter(
            "otomo_reminders_delivered", "Reminder occurrences posted", ["shard"], registry=r
        )
        self.reminders_late = Counter(
            "otomo_reminders_late",
            "Reminder occurrences posted a minute or more after their time",
            ["shard"],
            registry=r,
        )
        self.reminders_failed = Counter(
            "otomo_reminders_failed",
            "Reminders given up on (the owner was told)",
            ["shard"],
            registry=r,
        )
        self.reminder_lateness = Histogram(
            "otomo_reminder_lateness_seconds",
            "How long after its time a reminder was posted",
            ["shard"],
            buckets=_LATENESS_BUCKETS,
            registry=r,
        )
        self.rate_limited = Counter(
            "otomo_discord_rate_limited",
            "429 answers from Discord, by scope (user, global, shared)",
            ["scope"],
            registry=r,
        )
        self.knowledge_files = Gauge(
            "otomo_knowledge_files", "Files in the knowledge-base index", registry=r
        )
        self.knowledge_sections = Gauge(
            "otomo_knowledge_sections",
            "Searchable sections in the knowledge-base index",
            registry=r,
        )
        self.knowledge_reload_seconds = Gauge(
            "otomo_knowledge_reload_seconds",
            "Duration of the latest knowledge-base (re)load",
            registry=r,
        )
        self.gateway_connected = Gauge(
            "otomo_gateway_connected",
            "1 when the shard's gateway is connected",
            ["shard"],
            registry=r,
        )
        self.gateway_latency = Gauge(
            "otomo_gateway_latency_seconds",
            "Heartbeat round trip of the shard's gateway",
            ["shard"],
            registry=r,
        )
        self.healthy = Gauge(
            "otomo_healthy",
            "1 when the check passes (gateway, database, model, scheduler)",
            ["check"],
            registry=r,
        )

    def mention(self, shard: int) -> None:
        """A message for the bot arrived."""
        self.mentions.labels(shard=str(shard)).inc()

    def reply(self, shard: int, outcome: str, seconds: float) -> None:
        """An answer ended: answered, failed (the model or a tool broke) or refused."""
        label = str(shard)
        self.replies.labels(shard=label, outcome=outcome).inc()
        self.reply_seconds.labels(shard=label).observe(seconds)

    def model_call(
        self,
        model: str,
        purpose: str,
        seconds: float,
        *,
        tokens_in: int = 0,
        tokens_out: int = 0,
        error_kind: str | None = None,
    ) -> None:
        """One model call ended; error_kind names the failure (see LLMFailure.kind)."""
        self.model_calls.labels(model=model, purpose=purpose).inc()
        self.model_seconds.labels(model=model).observe(seconds)
        if tokens_in:
            self.model_tokens.labels(model=model, direction="prompt").inc(tokens_in)
        if tokens_out:
            self.model_tokens.labels(model=model, direction="completion").inc(tokens_out)
        now = time.monotonic()
        if error_kind is None:
            self.model_health.last_success = now
            return
        self.model_errors.labels(model=model, kind=error_kind).inc()
        if error_kind in UNAVAILABLE_KINDS:
            self.model_health.last_failure = now
            self.model_health.last_failure_kind = error_kind

    def approval(self, outcome: str) -> None:
        """An approval was decided or expired."""
        self.approvals.labels(outcome=outcome).inc()

    def reminder_delivered(self, shard: int, lateness_seconds: float, *, late: bool) -> None:
        """A reminder occurrence was posted lateness_seconds after its time."""
        label = str(shard)
        self.reminders_delivered.labels(shard=label).inc()
        self.reminder_lateness.labels(shard=label).observe(max(0.0, lateness_seconds))
        if late:
            self.reminders_late.labels(shard=label).inc()

    def reminder_failed(self, shard: int) -> None:
        """A reminder failed for good."""
        self.reminders_failed.labels(shard=str(shard)).inc()

    def discord_rate_limited(self, scope: str) -> None:
        """Discord answered 429."""
        self.rate_limited.labels(scope=scope or "unknown").inc()

    def knowledge_size(self, files: int, sections: int, reload_seconds: float | None) -> None:
        """The knowledge-base index now, and how long its latest (re)load took."""
        self.knowledge_files.set(files)
        self.knowledge_sections.set(sections)
        if reload_seconds is not None:
            self.knowledge_reload_seconds.set(reload_seconds)

    def gateway(self, shard: int, *, connected: bool, latency: float | None) -> None:
        """The state of one shard's gateway connection, as sampled now."""
        label = str(shard)
        self.gateway_connected.labels(shard=label).set(1 if connected else 0)
        if latency is not None and latency == latency and latency != float("inf"):
            self.gateway_latency.labels(shard=label).set(latency)

    def exposition(self) -> bytes:
        """The registry in Prometheus's text format."""
        return generate_latest(self.registry)
