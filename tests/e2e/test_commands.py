"""Core slash commands: synced to the development guild, help in the user's language, grants."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.harness import running_bot
from tests.fakes.discord_server import GUILD_ID, HANA_ID, FakeDiscord
from tests.fakes.llm_server import ScriptedLLM

pytestmark = pytest.mark.e2e


async def test_commands_sync_to_the_dev_guild_only(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    async with running_bot(tmp_path, fake=fake, llm=llm, DEV_GUILD_ID=GUILD_ID):
        names = {c["name"] for c in fake.commands(GUILD_ID)}

        assert {"otomo", "tools", "remind", "timezone"} <= names
        assert fake.commands(None) == []


async def test_without_a_dev_guild_commands_are_synced_globally_and_not_again_unchanged(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    async with running_bot(tmp_path, fake=fake, llm=llm):
        names = {c["name"] for c in fake.commands(None)}
    synced = [r for r in fake.requests if r.method == "PUT" and r.path.endswith("/commands")]
    async with running_bot(tmp_path, fake=fake, llm=llm):  # a restart, same commands
        pass
    again = [r for r in fake.requests if r.method == "PUT" and r.path.endswith("/commands")]

    assert {"otomo", "tools", "remind", "timezone"} <= names
    assert fake.commands(GUILD_ID) == []
    assert len(synced) == 1 and len(again) == 1


async def test_help_answers_privately_and_says_how_to_enable_web_search(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    async with running_bot(tmp_path, fake=fake, llm=llm, DEV_GUILD_ID=GUILD_ID):
        interaction = await fake.invoke_slash("otomo help", user_id=HANA_ID)
        answer = await interaction.wait_response()

        assert answer["data"]["flags"] & 64
        content = answer["data"]["content"]
        assert "リマインド" in content and "TAVILY_API_KEY" in content


async def test_revoking_an_always_allow_grant_from_the_menu(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    async with running_bot(tmp_path, fake=fake, llm=llm, DEV_GUILD_ID=GUILD_ID) as otomo:
        await otomo.app.core.approvals.grant(HANA_ID, "create_reminder", guild_id=GUILD_ID)
        listed = await fake.invoke_slash("tools allowed", user_id=HANA_ID)
        answer = await listed.wait_response()
        menu = answer["data"]["components"][0]["components"][0]
        message_id = int(listed.original_message()["id"])  # type: ignore[index]

        chosen = await fake.choose_select(
            message_id, menu["custom_id"], ["create_reminder"], HANA_ID
        )
        await chosen.wait_response()

        assert await otomo.app.core.approvals.grants(HANA_ID, guild_id=GUILD_ID) == []
