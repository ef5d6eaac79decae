"""Core slash commands: synced to the development guild, help in the user's language, grants."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.i18n.commands import JAPANESE
from tests.e2e.harness import running_bot
from tests.fakes.discord_server import GUILD_ID, HANA_ID, FakeDiscord, Json
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


async def test_commands_are_synced_with_japanese_descriptions_and_a_changed_one_resyncs(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with running_bot(tmp_path, fake=fake, llm=llm, DEV_GUILD_ID=GUILD_ID):
        synced = {c["name"]: c for c in fake.commands(GUILD_ID)}

    remind = synced["remind"]
    assert remind["description"] == "Reminders"
    assert remind["description_localizations"] == {"ja": "リマインド"}
    listing = next(o for o in remind["options"] if o["name"] == "list")
    assert listing["description_localizations"] == {"ja": "自分のリマインド一覧"}
    forget = next(o for o in synced["otomo"]["options"] if o["name"] == "forget")
    [scope] = forget["options"]
    assert scope["description_localizations"] == {"ja": "どこの記憶を消すか"}
    assert [c["name_localizations"] for c in scope["choices"]] == [
        {"ja": "このチャンネル"},
        {"ja": "すべてのチャンネルとDM"},
    ]
    # Every description a member reads has its Japanese: none is left in English only.
    untranslated = [
        entry["description"]
        for entry in _entries(list(synced.values()))
        if entry.get("description") and "ja" not in (entry.get("description_localizations") or {})
    ]
    assert untranslated == []

    # A translation changes: the next start syncs again (the hash covers the translations).
    monkeypatch.setitem(JAPANESE, "Reminders", "リマインドの管理")
    async with running_bot(tmp_path, fake=fake, llm=llm, DEV_GUILD_ID=GUILD_ID):
        resynced = {c["name"]: c for c in fake.commands(GUILD_ID)}
    puts = [r for r in fake.requests if r.method == "PUT" and r.path.endswith("/commands")]
    assert len(puts) == 2
    assert resynced["remind"]["description_localizations"] == {"ja": "リマインドの管理"}


def _entries(commands: list[Json]) -> list[Json]:
    """Every command, subcommand and option, depth first."""
    found: list[Json] = []
    for command in commands:
        found.append(command)
        found.extend(_entries(command.get("options") or []))
    return found
