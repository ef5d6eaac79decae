"""Costs in money, end to end: /otomo usage and `python -m bot usage` show the estimated cost of
a priced model and "unknown" for one without a price; a server's spent money budget refuses
mentions there and nowhere else."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.app.cli import _usage
from bot.storage.agent import LLMCall
from tests.e2e.harness import running_bot
from tests.fakes.discord_server import (
    ADMIN_ID,
    GENERAL_CHANNEL_ID,
    GUILD_ID,
    SECOND_GENERAL_CHANNEL_ID,
    SECOND_GUILD_ID,
    SORA_ID,
    FakeDiscord,
)
from tests.fakes.llm_server import ScriptedLLM, text

pytestmark = pytest.mark.e2e

PRICED = "openai/gpt-4o-mini"


async def test_cost_is_shown_per_model_and_a_spent_money_budget_refuses_that_server_only(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    llm.rule = lambda request: text("はーい")
    async with running_bot(tmp_path, fake=two_servers, llm=llm, DEV_GUILD_ID=GUILD_ID) as otomo:
        core = otomo.app.core
        # A day of a priced model in each server: three million prompt tokens is over $0.10.
        async with core.database.sessions() as session, session.begin():
            for guild in (GUILD_ID, SECOND_GUILD_ID):
                session.add(
                    LLMCall(
                        model=PRICED,
                        purpose="chat",
                        started_at=core.clock.now(),
                        latency_ms=100.0,
                        tokens_in=3_000_000,
                        tokens_cached=1_000_000,
                        tokens_out=10_000,
                        guild_id=guild,
                        user_id=ADMIN_ID,
                    )
                )
        await core.servers.change(SECOND_GUILD_ID, {"server_daily_cost": 0.1}, 1)
        _, refused = await otomo.ask(
            "hello, how are you?", channel_id=SECOND_GENERAL_CHANNEL_ID, user_id=SORA_ID
        )
        # The scripted model (openai/test-model) has no price: its call costs "unknown".
        _, answered = await otomo.ask("暇だなー", channel_id=GENERAL_CHANNEL_ID)
        asked = await two_servers.invoke_slash("otomo usage", {"days": 1}, user_id=ADMIN_ID)
        await asked.wait_response()
        japanese = (await asked.wait_followup())["content"]
        two_servers.world.client_locale = "en-US"
        asked = await two_servers.invoke_slash("otomo usage", {"days": 1}, user_id=ADMIN_ID)
        await asked.wait_response()
        english = (await asked.wait_followup())["content"]
        assert await _usage(otomo.settings, 1, GUILD_ID) == 0

    assert len(refused) == 1
    assert refused[0]["content"].startswith("This server's daily spending limit ($0.10)")
    assert [m["content"] for m in answered] == ["はーい"]
    assert llm.request_count == 1
    for shown in (japanese, english, capsys.readouterr().out):
        models = {line.split()[0]: line.split()[-1] for line in shown.splitlines() if "/" in line}
        assert models[PRICED].startswith("$") and models["openai/test-model"] == "unknown"
        total = next(line for line in shown.splitlines() if line.startswith("total"))
        assert total.split()[-1].startswith("$") and total.split()[-1].endswith("+?")
    assert "価格が分からないモデル: `openai/test-model`" in japanese
    assert "No price known for: `openai/test-model`" in english
    assert "💴" in japanese and "Estimated cost today" in english
