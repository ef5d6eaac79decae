"""Daily token budgets per server and per member, counted from the call log by server."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from bot.agent.llm.provider import CallLog, CallTry
from bot.runtime.clock import ManualClock
from bot.servers.budgets import MEMBER, SERVER, Budgets
from bot.servers.config import defaults_of
from bot.servers.directory import ServerDirectory
from bot.settings import Settings
from bot.storage import Database

ONE = 111_111_111_111_111_111
TWO = 222_222_222_222_222_222
ALICE, BOB = 1, 2


async def spend(
    database: Database, clock: ManualClock, guild: int | None, user: int, tokens: int
) -> None:
    await CallLog(database.sessions, with_prompts=False).record(
        CallTry(
            model="m",
            purpose="chat",
            conversation_key=None,
            started_at=clock.now(),
            latency_ms=1.0,
            messages=[],
            tokens_in=tokens // 2,
            tokens_out=tokens - tokens // 2,
            guild_id=guild,
            user_id=user,
        )
    )


def budgets_for(
    database: Database, clock: ManualClock, settings: Settings
) -> tuple[ServerDirectory, Budgets]:
    servers = ServerDirectory(database.sessions, clock, defaults_of(settings))
    return servers, Budgets(database.sessions, clock, servers)


async def test_no_budget_means_no_limit(
    database: Database, clock: ManualClock, make_settings: Callable[..., Settings]
) -> None:
    _, budgets = budgets_for(database, clock, make_settings())
    await spend(database, clock, ONE, ALICE, 10**9)

    assert await budgets.spent(ONE, ALICE) is None


async def test_a_servers_budget_counts_its_own_calls_only(
    database: Database, clock: ManualClock, make_settings: Callable[..., Settings]
) -> None:
    servers, budgets = budgets_for(database, clock, make_settings())
    await servers.change(ONE, {"server_daily_tokens": 1000}, by=7)
    await spend(database, clock, TWO, ALICE, 5000)
    await spend(database, clock, ONE, BOB, 600)
    assert await budgets.spent(ONE, ALICE) is None

    await spend(database, clock, ONE, BOB, 400)
    spent = await budgets.spent(ONE, ALICE)

    assert spent is not None and spent.kind == SERVER and spent.used == 1000
    assert await budgets.spent(TWO, ALICE) is None


async def test_a_members_budget_stops_that_member_only_until_the_servers_midnight(
    database: Database, clock: ManualClock, make_settings: Callable[..., Settings]
) -> None:
    servers, budgets = budgets_for(database, clock, make_settings(MEMBER_DAILY_TOKEN_BUDGET=500))
    await spend(database, clock, ONE, ALICE, 500)

    spent = await budgets.spent(ONE, ALICE)

    assert spent is not None and spent.kind == MEMBER
    assert await budgets.spent(ONE, BOB) is None
    local = spent.resets_at.astimezone(servers.config(ONE).zone)
    assert (local.hour, local.minute) == (0, 0) and spent.resets_at > clock.now()
    clock.set(spent.resets_at + timedelta(seconds=1))
    assert await budgets.spent(ONE, ALICE) is None


async def test_a_member_is_told_once_a_day_per_budget(
    database: Database, clock: ManualClock, make_settings: Callable[..., Settings]
) -> None:
    _, budgets = budgets_for(database, clock, make_settings(MEMBER_DAILY_TOKEN_BUDGET=10))
    await spend(database, clock, ONE, ALICE, 10)
    spent = await budgets.spent(ONE, ALICE)
    assert spent is not None

    assert budgets.first_telling(ONE, ALICE, spent)
    assert not budgets.first_telling(ONE, ALICE, spent)
    assert budgets.first_telling(TWO, ALICE, spent)
    clock.set(spent.resets_at + timedelta(minutes=1))
    assert budgets.first_telling(ONE, ALICE, spent)


def test_the_sentence_names_the_budget_and_its_reset_in_the_servers_language(
    make_settings: Callable[..., Settings],
) -> None:
    from datetime import UTC, datetime

    from bot.servers.budgets import Spent

    resets = datetime(2026, 12, 2, 15, 0, tzinfo=UTC)
    english = Spent(SERVER, 100, 120, resets).sentence("en")
    japanese = Spent(MEMBER, 100, 120, resets).sentence("ja")

    assert english.startswith("This server's daily budget is used up")
    assert f"<t:{int(resets.timestamp())}:t>" in english
    assert japanese.startswith("あなたの今日の利用上限に達しました")
