"""Usage of the model per day and per model, from the LLM call log: calls, tokens (and how many
of the prompt tokens the provider read from its cache), errors, latency and estimated cost."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.servers.costs import cost_of, money
from bot.storage.agent import LLMCall

UNKNOWN = "unknown"


@dataclass
class DayUsage:
    """One local day of model calls."""

    day: date
    calls: int = 0
    errors: int = 0
    tokens_in: int = 0
    tokens_cached: int = 0
    tokens_out: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    purposes: Counter[str] = field(default_factory=Counter)
    # Estimated US dollars of the calls whose model has a price; the others are counted apart.
    cost: float = 0.0
    unpriced_calls: int = 0

    @property
    def cost_text(self) -> str:
        """The day's estimated cost; `unknown` when no call of it had a price, marked `+?` when
        some had none."""
        if self.unpriced_calls and self.unpriced_calls == self.calls:
            return UNKNOWN
        return money(self.cost) + ("+?" if self.unpriced_calls else "")

    @property
    def mean_ms(self) -> float:
        """Mean latency of the day's calls (0 without calls)."""
        return sum(self.latencies_ms) / len(self.latencies_ms) if self.latencies_ms else 0.0

    @property
    def p95_ms(self) -> float:
        """95th percentile latency (nearest rank; 0 without calls)."""
        if not self.latencies_ms:
            return 0.0
        ordered = sorted(self.latencies_ms)
        return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


@dataclass
class ModelUsage:
    """One model's calls and tokens over the period, and their cost (None: no price)."""

    model: str
    calls: int = 0
    tokens_in: int = 0
    tokens_cached: int = 0
    tokens_out: int = 0
    cost: float | None = None

    @property
    def cost_text(self) -> str:
        """The estimated cost, or `unknown` when the cost map has no price for the model."""
        return UNKNOWN if self.cost is None else money(self.cost)


@dataclass(frozen=True)
class UsageReport:
    """Every day of the period, oldest first (days without calls included), the totals, and
    each model's share (most calls first)."""

    days: list[DayUsage]
    total: DayUsage
    models: list[ModelUsage] = field(default_factory=list)

    @property
    def unpriced_models(self) -> list[str]:
        """The models the cost map has no price for."""
        return [m.model for m in self.models if m.cost is None]

    def table(self) -> str:
        """A per-day table of calls, errors, tokens (prompt, of which cached, and answer) and
        latency, with the totals."""
        rows = [
            f"{'day':<10} {'calls':>5} {'err':>4} {'tok in':>8} {'cached':>8} {'tok out':>8} "
            f"{'avg s':>6} {'p95 s':>6} {'cost':>9}"
        ]
        for day in [*self.days, self.total]:
            label = "total" if day is self.total else day.day.strftime("%m-%d %a")
            rows.append(
                f"{label:<10} {day.calls:>5} {day.errors:>4} {day.tokens_in:>8} "
                f"{day.tokens_cached:>8} {day.tokens_out:>8} {day.mean_ms / 1000:>6.2f} "
                f"{day.p95_ms / 1000:>6.2f} {day.cost_text:>9}"
            )
        return "\n".join(rows)

    def model_table(self) -> str:
        """Calls, tokens and estimated cost per model over the period."""
        width = max([5, *(len(m.model) for m in self.models)])
        rows = [
            f"{'model':<{width}} {'calls':>5} {'tok in':>8} {'cached':>8} {'tok out':>8} "
            f"{'cost':>9}"
        ]
        for m in self.models:
            rows.append(
                f"{m.model:<{width}} {m.calls:>5} {m.tokens_in:>8} {m.tokens_cached:>8} "
                f"{m.tokens_out:>8} {m.cost_text:>9}"
            )
        return "\n".join(rows)


async def usage_by_day(
    sessions: async_sessionmaker[AsyncSession],
    now: datetime,
    days: int,
    tz: ZoneInfo,
    guild_id: int | None = None,
) -> UsageReport:
    """The last `days` local days up to today, in time zone tz: of one server, or of the whole
    bot when guild_id is None."""
    today = now.astimezone(tz).date()
    first = today - timedelta(days=days - 1)
    start = datetime.combine(first, datetime.min.time(), tzinfo=tz)
    async with sessions() as session:
        rows = (
            await session.execute(
                select(
                    LLMCall.started_at,
                    LLMCall.latency_ms,
                    LLMCall.tokens_in,
                    LLMCall.tokens_cached,
                    LLMCall.tokens_out,
                    LLMCall.error,
                    LLMCall.purpose,
                    LLMCall.model,
                ).where(
                    LLMCall.started_at >= start,
                    *(() if guild_id is None else (LLMCall.guild_id == guild_id,)),
                )
            )
        ).all()
    by_day: dict[date, DayUsage] = {}
    total = DayUsage(first)
    models: dict[str, ModelUsage] = {}
    for started_at, latency, tokens_in, tokens_cached, tokens_out, error, purpose, model in rows:
        day = started_at.astimezone(tz).date()
        if day > today:
            continue
        cost = cost_of(model, tokens_in or 0, tokens_cached or 0, tokens_out or 0)
        share = models.setdefault(model, ModelUsage(model))
        share.calls += 1
        share.tokens_in += tokens_in or 0
        share.tokens_cached += tokens_cached or 0
        share.tokens_out += tokens_out or 0
        if cost is not None:
            share.cost = (share.cost or 0.0) + cost
        for usage in (by_day.setdefault(day, DayUsage(day)), total):
            if cost is None:
                usage.unpriced_calls += 1
            else:
                usage.cost += cost
            usage.calls += 1
            usage.errors += error is not None
            usage.tokens_in += tokens_in or 0
            usage.tokens_cached += tokens_cached or 0
            usage.tokens_out += tokens_out or 0
            usage.latencies_ms.append(latency)
            usage.purposes[purpose] += 1
    every_day = (first + timedelta(days=n) for n in range(days))
    listed = [by_day.get(day) or DayUsage(day) for day in every_day]
    ranked = sorted(models.values(), key=lambda m: (-m.calls, m.model))
    return UsageReport(listed, total, ranked)
