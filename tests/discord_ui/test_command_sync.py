"""Slash commands appear: synced once per change of the command tree, where they are wanted."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest
from discord import app_commands

from bot.discord_ui.commands.sync import CommandSync
from bot.runtime.clock import ManualClock
from bot.storage import Database
from bot.storage.command_syncs import CommandSyncs
from tests.fakes.discord_server import GUILD_ID, FakeDiscord, point_discord_py_at

pytestmark = pytest.mark.e2e


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    """A fake Discord the real discord.py logs in to (REST only)."""
    async with FakeDiscord() as server:
        restore = point_discord_py_at(server)
        yield server
        restore()


def _add(tree: app_commands.CommandTree[Any], name: str) -> app_commands.CommandTree[Any]:
    async def callback(interaction: discord.Interaction[Any]) -> None:
        """A command that does nothing."""

    tree.add_command(app_commands.Command(name=name, description=name, callback=callback))
    return tree


def _puts(fake: FakeDiscord) -> list[str]:
    return [r.path for r in fake.requests if r.method == "PUT" and "/commands" in r.path]


async def test_commands_are_synced_once_per_change_and_not_at_each_start(
    fake: FakeDiscord, database: Database, clock: ManualClock
) -> None:
    client = discord.Client(intents=discord.Intents.none())
    async with client:
        await client.login(fake.token or "")
        tree = _add(app_commands.CommandTree(client), "ping")
        sync = CommandSync(CommandSyncs(database.sessions), clock.now, dev_guild_id=None)

        first = await sync.sync_if_changed(client, tree)
        again = await sync.sync_if_changed(client, tree)
        changed = await sync.sync_if_changed(client, _add(tree, "pong"))

    assert (first.synced, again.synced, changed.synced) == (True, False, True)
    assert len(_puts(fake)) == 2
    assert sorted(c["name"] for c in fake.commands()) == ["ping", "pong"]
    assert changed.commands == 2 and changed.where == "globally"


async def test_with_dev_guild_id_commands_go_to_that_server_at_once(
    fake: FakeDiscord, database: Database, clock: ManualClock
) -> None:
    client = discord.Client(intents=discord.Intents.none())
    async with client:
        await client.login(fake.token or "")
        tree = _add(app_commands.CommandTree(client), "ping")
        global_sync = CommandSync(CommandSyncs(database.sessions), clock.now, dev_guild_id=None)
        await global_sync.sync_if_changed(client, tree)
        guild_sync = CommandSync(CommandSyncs(database.sessions), clock.now, dev_guild_id=GUILD_ID)

        outcome = await guild_sync.sync_if_changed(client, tree)

    # The same tree, a new scope: synced there too, each scope remembering its own hash.
    assert outcome.synced and outcome.where == f"to server {GUILD_ID}"
    assert [c["name"] for c in fake.commands(GUILD_ID)] == ["ping"]
    assert _puts(fake)[-1].endswith(f"/guilds/{GUILD_ID}/commands")
