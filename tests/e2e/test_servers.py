"""Otomo in two servers at once: members of each reach it, and each server's data stays its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.harness import running_bot
from tests.fakes.discord_server import (
    GENERAL_CHANNEL_ID,
    GUILD_ID,
    HANA_ID,
    SECOND_GENERAL_CHANNEL_ID,
    SECOND_GUILD_ID,
    SECOND_OWNER_ID,
    SORA_ID,
    FakeDiscord,
)
from tests.fakes.llm_server import ScriptedLLM, text

pytestmark = pytest.mark.e2e


async def test_members_of_either_server_and_of_both_are_answered_where_they_ask(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(text("ロビーからこんにちは"), text("一般からこんにちは"), text("DMです"))
    async with running_bot(tmp_path, fake=two_servers, llm=llm) as otomo:
        assert {g.id for g in otomo.app.bot.guilds} == {GUILD_ID, SECOND_GUILD_ID}

        _, there = await otomo.ask(
            "こんにちは", channel_id=SECOND_GENERAL_CHANNEL_ID, user_id=SORA_ID
        )
        _, here = await otomo.ask("こんにちは", channel_id=GENERAL_CHANNEL_ID, user_id=HANA_ID)
        _, dm = await otomo.ask_dm("こんにちは", user_id=SORA_ID)

    assert [m["content"] for m in there] == ["ロビーからこんにちは"]
    assert [m["content"] for m in here] == ["一般からこんにちは"]
    assert [m["content"] for m in dm] == ["DMです"]


async def test_slash_commands_synced_globally_run_in_the_second_server(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM
) -> None:
    async with running_bot(tmp_path, fake=two_servers, llm=llm):
        interaction = await two_servers.invoke_slash(
            "otomo help", user_id=SECOND_OWNER_ID, channel_id=SECOND_GENERAL_CHANNEL_ID
        )
        answer = await interaction.wait_response()

    assert interaction.payload["guild_id"] == str(SECOND_GUILD_ID)
    assert answer["data"]["flags"] & 64 and "リマインド" in answer["data"]["content"]
