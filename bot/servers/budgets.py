"""Daily budgets per server and per member, counted from the LLM call log: tokens, and a
server's money (US dollars, estimated with litellm's price map).

A day is the server's local day. A budget of 0 is unlimited and costs no query. A member told
that a budget is spent is told once per day and budget; later mentions get a reaction only.
A call to a model the price map does not know costs nothing against the money budget (its cost
is unknown, and /otomo usage says which models are not counted); token budgets still count it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.i18n import moment
from bot.runtime.clock import Clock
from bot.servers.costs import money, price_of
from bot.servers.directory import ServerDirectory
from bot.storage.agent import LLMCall

SERVER = "server"
MEMBER = "member"
MONEY = "money"
# Members remembered as told before the memory is swept of past days.
SWEEP_AT_LEAST = 256


@dataclass(frozen=True)
class Spent:
    """A budget that is used up: which one, its size, and when it resets (UTC)."""

    kind: str
    limit: float
    used: float
    resets_at: datetime

    def sentence(self, language: str) -> str:
        """What the member reads, in their language."""
        stamp = moment(self.resets_at, "t")
        if self.kind == MONEY:
            limit = money(self.limit)
            ja = (
                f"このサーバーの今日の費用の上限（{limit}）に達しました。"
                f"{stamp} にリセットされます。"
            )
            en = f"This server's daily spending limit ({limit}) is used up; it resets at {stamp}."
        elif self.kind == SERVER:
            ja = f"このサーバーの今日の利用上限に達しました。{stamp} にリセットされます。"
            en = f"This server's daily budget is used up; it resets at {stamp}."
        else:
            ja = f"あなたの今日の利用上限に達しました。{stamp} にリセットされます。"
            en = f"Your daily budget in this server is used up; it resets at {stamp}."
        return en if language == "en" else ja


@dataclass(frozen=True)
class BudgetUse:
    """Today's use of a server and of one member, with their budgets (0 = unlimited)."""

    server_used: int
    server_limit: int
    member_used: int
    member_limit: int
    resets_at: datetime
    # The server's estimated US dollars today and its money budget (0 = unlimited).
    server_cost: float = 0.0
    server_cost_limit: float = 0.0
    # Models used today that the price map does not know (not in server_cost).
    unpriced_models: tuple[str, ...] = ()

    @staticmethod
    def left(limit: int, used: int) -> int | None:
        """Tokens left (None when unlimited)."""
        return None if limit == 0 else max(0, limit - used)


class Budgets:
    """Checks a server's and a member's budget before a model call."""

    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], clock: Clock, servers: ServerDirectory
    ) -> None:
        self._sessions = sessions
        self._clock = clock
        self._servers = servers
        # (guild, member, budget) -> until when the member was told.
        self._told: dict[tuple[int, int, str], datetime] = {}
        self._sweep_at = SWEEP_AT_LEAST

    def language(self, guild_id: int) -> str:
        """The server's language, for the sentence."""
        return self._servers.config(guild_id).language

    def _day(self, guild_id: int) -> tuple[datetime, datetime]:
        zone = self._servers.config(guild_id).zone
        local = self._clock.now().astimezone(zone)
        start = datetime.combine(local.date(), datetime.min.time(), tzinfo=zone)
        return start, datetime.combine(
            local.date() + timedelta(days=1), datetime.min.time(), tzinfo=zone
        )

    async def use(self, guild_id: int, user_id: int | None) -> BudgetUse:
        """Today's tokens of the server and of the member, the server's cost, and the limits."""
        tokens = await self._tokens(guild_id, user_id)
        cost, unpriced = await self.cost_today(guild_id)
        limit = self._servers.config(guild_id).server_daily_cost
        return replace(tokens, server_cost=cost, server_cost_limit=limit, unpriced_models=unpriced)

    async def _tokens(self, guild_id: int, user_id: int | None) -> BudgetUse:
        config = self._servers.config(guild_id)
        start, end = self._day(guild_id)
        spent = func.coalesce(func.sum(LLMCall.tokens_in), 0) + func.coalesce(
            func.sum(LLMCall.tokens_out), 0
        )
        today = (LLMCall.guild_id == guild_id, LLMCall.started_at >= start)
        async with self._sessions() as session:
            server_used = int(await session.scalar(select(spent).where(*today)) or 0)
            member_used = (
                int(
                    await session.scalar(select(spent).where(*today, LLMCall.user_id == user_id))
                    or 0
                )
                if user_id is not None
                else 0
            )
        return BudgetUse(
            server_used, config.server_daily_tokens, member_used, config.member_daily_tokens, end
        )

    async def cost_today(self, guild_id: int) -> tuple[float, tuple[str, ...]]:
        """The server's estimated US dollars today, and the models used that have no price."""
        start, _ = self._day(guild_id)
        async with self._sessions() as session:
            rows = (
                await session.execute(
                    select(
                        LLMCall.model,
                        func.coalesce(func.sum(LLMCall.tokens_in), 0),
                        func.coalesce(func.sum(LLMCall.tokens_cached), 0),
                        func.coalesce(func.sum(LLMCall.tokens_out), 0),
                    )
                    .where(LLMCall.guild_id == guild_id, LLMCall.started_at >= start)
                    .group_by(LLMCall.model)
                )
            ).all()
        cost = 0.0
        unpriced: list[str] = []
        for model, tokens_in, tokens_cached, tokens_out in rows:
            price = price_of(model)
            if price is None:
                unpriced.append(model)
            else:
                cost += price.cost(
                    int(tokens_in or 0), int(tokens_cached or 0), int(tokens_out or 0)
                )
        return cost, tuple(sorted(unpriced))

    async def spent(self, guild_id: int | None, user_id: int | None) -> Spent | None:
        """The first budget used up for this call (the server's, then the member's), or None.
        Outside a server, or with no budgets set, there is nothing to count."""
        if guild_id is None:
            return None
        config = self._servers.config(guild_id)
        if config.server_daily_cost:
            cost, _ = await self.cost_today(guild_id)
            if cost >= config.server_daily_cost:
                _, resets_at = self._day(guild_id)
                return Spent(MONEY, config.server_daily_cost, cost, resets_at)
        if not config.server_daily_tokens and not (config.member_daily_tokens and user_id):
            return None
        use = await self._tokens(guild_id, user_id)
        if use.server_limit and use.server_used >= use.server_limit:
            return Spent(SERVER, use.server_limit, use.server_used, use.resets_at)
        if use.member_limit and use.member_used >= use.member_limit:
            return Spent(MEMBER, use.member_limit, use.member_used, use.resets_at)
        return None

    def first_telling(self, guild_id: int, user_id: int, spent: Spent) -> bool:
        """True the first time this member hears of this spent budget today (then False until
        it resets), so a member is not answered with the same sentence on every mention."""
        now = self._clock.now()
        if len(self._told) > self._sweep_at:
            self._told = {key: until for key, until in self._told.items() if until > now}
            self._sweep_at = max(SWEEP_AT_LEAST, 2 * len(self._told))
        key = (guild_id, user_id, spent.kind)
        if self._told.get(key, now) > now:
            return False
        self._told[key] = spent.resets_at
        return True
