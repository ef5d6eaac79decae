"""Costs in money: prices from litellm's bundled map, cost per day and per model, and a server's
daily budget in US dollars (a model without a price is unknown and not counted)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.agent.llm.usage import usage_by_day
from bot.runtime.clock import ManualClock
from bot.servers.budgets import MONEY, Budgets, Spent
from bot.servers.config import SETTINGS, BadValue, defaults_of
from bot.servers.costs import Price, cost_of, money, price_of
from bot.servers.directory import ServerDirectory
from bot.settings import Settings
from bot.storage import Database
from bot.storage.agent import LLMCall

ONE = 111_111_111_111_111_111
TWO = 222_222_222_222_222_222
ALICE = 1
PRICED = "openai/gpt-4o-mini"
UNPRICED = "openai/test-model"
TOKYO = ZoneInfo("Asia/Tokyo")


async def call(
    database: Database,
    at: datetime,
    model: str,
    guild: int | None,
    tokens_in: int,
    tokens_out: int,
    cached: int | None = None,
) -> None:
    async with database.sessions() as session, session.begin():
        session.add(
            LLMCall(
                model=model,
                purpose="chat",
                started_at=at,
                latency_ms=10.0,
                tokens_in=tokens_in,
                tokens_out=tokens_out,
                tokens_cached=cached,
                guild_id=guild,
                user_id=ALICE,
            )
        )


def test_a_model_in_litellms_map_has_its_price_and_others_have_none() -> None:
    price = price_of(PRICED)

    assert price is not None and price.prompt > 0 and price.answer > price.prompt
    assert price.cached < price.prompt  # the map has a cache price for it
    assert price_of(UNPRICED) is None
    assert cost_of(UNPRICED, 1000, 0, 1000) is None


def test_cached_prompt_tokens_cost_the_cache_price_when_the_map_has_one() -> None:
    with_cache = {"m": {"input_cost_per_token": 1.0, "output_cost_per_token": 2.0}}
    with_cache["m"]["cache_read_input_token_cost"] = 0.25
    without_cache = {"m": {"input_cost_per_token": 1.0, "output_cost_per_token": 2.0}}

    assert price_of("provider/m", with_cache) == Price(1.0, 0.25, 2.0)
    assert Price(1.0, 0.25, 2.0).cost(100, 40, 10) == 60 + 10 + 20
    assert price_of("m", without_cache) == Price(1.0, 1.0, 2.0)


def test_money_reads_as_dollars() -> None:
    assert (money(0), money(0.00123), money(1.5), money(1234.5)) == (
        "$0",
        "$0.0012",
        "$1.50",
        "$1,234.50",
    )


async def test_usage_shows_the_cost_per_day_and_per_model_and_unknown_without_a_price(
    database: Database,
) -> None:
    now = datetime(2026, 11, 29, 1, 0, tzinfo=UTC)
    await call(database, now, PRICED, ONE, 1_000_000, 100_000, cached=400_000)
    await call(database, now - timedelta(days=1), UNPRICED, ONE, 500, 50)
    await call(database, now, UNPRICED, ONE, 500, 50)

    report = await usage_by_day(database.sessions, now, 2, TOKYO, ONE)

    expected = price_of(PRICED)
    assert expected is not None
    cost = expected.cost(1_000_000, 400_000, 100_000)
    yesterday, today = report.days
    assert yesterday.cost_text == "unknown"
    assert today.cost == pytest.approx(cost) and today.cost_text == f"{money(cost)}+?"
    by_model = {m.model: m for m in report.models}
    assert by_model[PRICED].cost == pytest.approx(cost)
    assert by_model[UNPRICED].cost is None and by_model[UNPRICED].calls == 2
    assert report.unpriced_models == [UNPRICED]
    assert "cost" in report.table().splitlines()[0]
    assert "unknown" in report.model_table() and money(cost) in report.model_table()


def test_the_money_budget_is_a_server_setting_in_dollars() -> None:
    setting = SETTINGS["server_daily_cost"]

    assert setting.parse("$1.50") == 1.5 and setting.parse("0") == 0
    with pytest.raises(BadValue):
        setting.parse("lots")
    assert "USD" in setting.label("ja") and "USD" in setting.label("en")


async def test_a_spent_money_budget_refuses_that_server_only_and_unpriced_calls_do_not_count(
    database: Database, clock: ManualClock, make_settings: Callable[..., Settings]
) -> None:
    servers = ServerDirectory(database.sessions, clock, defaults_of(make_settings()))
    budgets = Budgets(database.sessions, clock, servers)
    await servers.change(ONE, {"server_daily_cost": 0.01}, by=7)
    await servers.change(TWO, {"server_daily_cost": 0.01}, by=7)
    # Millions of tokens of a model without a price: unknown, so not counted.
    await call(database, clock.now(), UNPRICED, ONE, 5_000_000, 5_000_000)
    assert await budgets.spent(ONE, ALICE) is None

    await call(database, clock.now(), PRICED, ONE, 100_000, 10_000)
    spent = await budgets.spent(ONE, ALICE)

    assert spent is not None and spent.kind == MONEY and spent.used >= 0.01
    assert await budgets.spent(TWO, ALICE) is None
    use = await budgets.use(ONE, ALICE)
    assert use.server_cost_limit == 0.01 and use.unpriced_models == (UNPRICED,)
    clock.set(spent.resets_at + timedelta(seconds=1))
    assert await budgets.spent(ONE, ALICE) is None


def test_the_money_sentence_says_money_in_both_languages() -> None:
    resets = datetime(2026, 12, 2, 15, 0, tzinfo=UTC)
    spent = Spent(MONEY, 0.5, 0.52, resets)

    assert spent.sentence("en").startswith("This server's daily spending limit ($0.50)")
    assert spent.sentence("ja").startswith("このサーバーの今日の費用の上限（$0.50）")
