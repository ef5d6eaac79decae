"""Model usage per local day from the call log: calls, errors, tokens, latency."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from bot.agent.llm.usage import usage_by_day
from bot.storage import Database
from bot.storage.agent import LLMCall

TOKYO = ZoneInfo("Asia/Tokyo")
# 10:00 on 2026-11-29 in Tokyo.
NOW = datetime(2026, 11, 29, 1, 0, tzinfo=UTC)


async def _calls(database: Database, *rows: tuple[datetime, float, int, int, str | None]) -> None:
    async with database.sessions() as session, session.begin():
        for started_at, latency, tokens_in, tokens_out, error in rows:
            session.add(
                LLMCall(
                    model="m",
                    purpose="agent" if error is None else "tips",
                    started_at=started_at,
                    latency_ms=latency,
                    tokens_in=tokens_in,
                    tokens_out=tokens_out,
                    error=error,
                )
            )


async def test_calls_are_grouped_by_local_day_with_every_day_listed(database: Database) -> None:
    # 23:30 UTC on the 28th is 08:30 on the 29th in Tokyo.
    late = datetime(2026, 11, 28, 23, 30, tzinfo=UTC)
    await _calls(
        database,
        (late, 1000.0, 100, 20, None),
        (late + timedelta(minutes=5), 3000.0, 50, 0, "timeout"),
        (NOW - timedelta(days=2), 500.0, 10, 5, None),
        (NOW - timedelta(days=10), 500.0, 10, 5, None),
    )

    report = await usage_by_day(database.sessions, NOW, 3, TOKYO)

    assert [d.day.isoformat() for d in report.days] == ["2026-11-27", "2026-11-28", "2026-11-29"]
    assert [d.calls for d in report.days] == [1, 0, 2]
    today = report.days[-1]
    assert (today.errors, today.tokens_in, today.tokens_out) == (1, 150, 20)
    assert today.mean_ms == 2000.0 and today.p95_ms == 3000.0
    assert (report.total.calls, report.total.tokens_in) == (3, 160)
    assert dict(report.total.purposes) == {"agent": 2, "tips": 1}


async def test_a_day_without_calls_has_zero_latency(database: Database) -> None:
    report = await usage_by_day(database.sessions, NOW, 1, TOKYO)

    assert report.days[0].calls == 0 and report.days[0].p95_ms == 0.0
