"""Usage of the model per day, from the LLM call log: calls, tokens (and how many of the prompt
tokens the provider read from its cache), errors and latency."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.storage.agent import LLMCall


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


@dataclass(frozen=True)
class UsageReport:
    """Every day of the period, oldest first (days without calls included), and the totals."""

    days: list[DayUsage]
    total: DayUsage

    def table(self) -> str:
        """A per-day table of calls, errors, tokens (prompt, of which cached, and answer) and
        latency, with the totals."""
        rows = [
            f"{'day':<10} {'calls':>5} {'err':>4} {'tok in':>8} {'cached':>8} {'tok out':>8} "
            f"{'avg s':>6} {'p95 s':>6}"
        ]
        for day in [*self.days, self.total]:
            label = "total" if day is self.total else day.day.strftime("%m-%d %a")
            rows.append(
                f"{label:<10} {day.calls:>5} {day.errors:>4} {day.tokens_in:>8} "
                f"{day.tokens_cached:>8} {day.tokens_out:>8} {day.mean_ms / 1000:>6.2f} "
                f"{day.p95_ms / 1000:>6.2f}"
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
                ).where(
                    LLMCall.started_at >= start,
                    *(() if guild_id is None else (LLMCall.guild_id == guild_id,)),
                )
            )
        ).all()
    by_day: dict[date, DayUsage] = {}
    total = DayUsage(first)
    for started_at, latency, tokens_in, tokens_cached, tokens_out, error, purpose in rows:
        day = started_at.astimezone(tz).date()
        if day > today:
            continue
        for usage in (by_day.setdefault(day, DayUsage(day)), total):
            usage.calls += 1
            usage.errors += error is not None
            usage.tokens_in += tokens_in or 0
            usage.tokens_cached += tokens_cached or 0
            usage.tokens_out += tokens_out or 0
            usage.latencies_ms.append(latency)
            usage.purposes[purpose] += 1
    every_day = (first + timedelta(days=n) for n in range(days))
    listed = [by_day.get(day) or DayUsage(day) for day in every_day]
    return UsageReport(listed, total)
