"""Slash commands that appear: synced when the command tree changed since the last sync.

The tree's hash is stored per application and scope (`command_syncs`), so a restart with the
same commands makes no request, and a changed command is synced once however many processes
start. With DEV_GUILD_ID the commands go to that server (at once); otherwise globally (Discord
may take up to an hour to show new global commands).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import discord
from discord import app_commands

from bot.storage.command_syncs import GLOBAL_SCOPE, CommandSyncs

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SyncOutcome:
    """What a start did about slash commands."""

    scope: str
    commands: int
    synced: bool

    @property
    def where(self) -> str:
        """`globally` or `to server <id>`, for the log."""
        return "globally" if self.scope == GLOBAL_SCOPE else f"to server {self.scope}"


def scope_of(dev_guild_id: int | None) -> str:
    """The scope commands go to: DEV_GUILD_ID when set, else global."""
    return str(dev_guild_id) if dev_guild_id else GLOBAL_SCOPE


async def tree_payload(
    tree: app_commands.CommandTree[Any], guild: discord.Object | None
) -> list[Any]:
    """What a sync would send for guild (None: global), translations included, in a stable
    order: a changed translation changes the hash, so it is synced too."""
    commands = tree.get_commands(guild=guild)
    translator = tree.translator
    if translator is None:
        payload = [command.to_dict(tree) for command in commands]
    else:
        payload = [await command.get_translated_payload(tree, translator) for command in commands]
    return sorted(payload, key=lambda c: (int(c.get("type", 1)), str(c["name"])))


def tree_hash(payload: list[Any]) -> str:
    """A digest of the payload that changes whenever any name, option or text changes."""
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class CommandSync:
    """Syncs the bot's command tree to its scope when the stored hash differs."""

    def __init__(
        self,
        store: CommandSyncs,
        now: Callable[[], datetime],
        dev_guild_id: int | None,
    ) -> None:
        self._store = store
        self._now = now
        self.scope = scope_of(dev_guild_id)
        self._guild = discord.Object(dev_guild_id) if dev_guild_id else None

    async def sync_if_changed(
        self, client: discord.Client, tree: app_commands.CommandTree[Any]
    ) -> SyncOutcome:
        """Sync when the tree changed since the last sync to this scope; log what happened."""
        assert client.application_id is not None
        if self._guild is not None:
            tree.copy_global_to(guild=self._guild)
        payload = await tree_payload(tree, self._guild)
        digest = tree_hash(payload)
        stored = await self._store.last(client.application_id, self.scope)
        if stored is not None and stored.tree_hash == digest:
            outcome = SyncOutcome(self.scope, len(payload), synced=False)
            log.info(
                "Slash commands unchanged since the last sync (%d %s)",
                outcome.commands,
                outcome.where,
            )
            return outcome
        synced = await tree.sync(guild=self._guild)
        await self._store.record(
            client.application_id, self.scope, digest, len(synced), self._now()
        )
        outcome = SyncOutcome(self.scope, len(synced), synced=True)
        log.info(
            "Synced %d slash commands %s%s",
            outcome.commands,
            outcome.where,
            "" if self._guild else " (Discord may take up to an hour to show new ones everywhere)",
        )
        return outcome
