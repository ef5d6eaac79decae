"""Servers by guild id: the scope a read or write is about, and each server's settings, held in
memory by every process and refreshed from the database.

Every server's knowledge files, change log, web-search archive, word pool, tips history, grants
and notes carry its guild id; shared rows (the operator's knowledge base, rows from before
servers had their own) carry none. A server sees the shared rows and its own; a DM is its own
scope and sees the shared rows only. A `ServerScope` is passed explicitly from the mention,
command or job that knows where it happens down to the query, never held in a global.

The database is the truth. Every process keeps every server's effective settings in a dict, so
resolving a mention's settings is a dictionary look-up (no query, no await); a change made
through any process bumps the row's version, and each process reads the versions every
SERVER_SETTINGS_REFRESH_SECONDS and reloads only the rows that changed.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, cast

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.i18n import Language
from bot.runtime.clock import Clock
from bot.servers.config import SETTINGS, ServerConfig, effective, from_json, to_json
from bot.settings.environment import ThreadMode
from bot.storage.engine import one_writer, write_sessions
from bot.storage.outage import is_unreachable
from bot.storage.servers import ServerSettingsRow

log = logging.getLogger(__name__)

# The folder, under the knowledge base, holding each server's own files: servers/<guild id>/.
SERVERS_FOLDER = "servers"


@dataclass(frozen=True, slots=True)
class ServerScope:
    """A server by its guild id, or a DM (guild_id None) that sees shared data only."""

    guild_id: int | None

    DM: ClassVar[ServerScope]

    @classmethod
    def of(cls, guild_id: int | None) -> ServerScope:
        """The scope of a place: the server's, or the DM scope when guild_id is None."""
        return cls(guild_id)

    @property
    def is_dm(self) -> bool:
        """Whether this is a DM (no server of its own)."""
        return self.guild_id is None

    def sees(self, owner: int | None) -> bool:
        """Whether data owned by `owner` (None: shared) is visible here."""
        return owner is None or owner == self.guild_id

    @property
    def knowledge_folder(self) -> str | None:
        """The server's own knowledge folder relative to the base (`servers/<id>`), None in DMs."""
        return None if self.guild_id is None else f"{SERVERS_FOLDER}/{self.guild_id}"

    def __str__(self) -> str:
        return "DM" if self.guild_id is None else f"server {self.guild_id}"


ServerScope.DM = ServerScope(None)


class ServerDirectory:
    """Every server's effective settings; `config` answers from memory."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        defaults: ServerConfig,
    ) -> None:
        self._sessions = sessions
        # Read-then-write transactions: on SQLite they take the write lock at BEGIN.
        self._writes = write_sessions(sessions)
        self._clock = clock
        self.defaults = defaults
        self._configs: dict[int, ServerConfig] = {}
        self._versions: dict[int, int] = {}
        # After the first load, a change read here was made through another process.
        self._loaded = False

    def config(self, guild_id: int | None) -> ServerConfig:
        """The effective settings of a server (the defaults in DMs and for unset servers)."""
        if guild_id is None:
            return self.defaults
        return self._configs.get(guild_id, self.defaults)

    def tool_enabled(self, name: str, guild_id: int | None) -> bool:
        """Whether a tool is switched on in the server (the defaults decide in DMs)."""
        return self.config(guild_id).tool_enabled(name)

    def overrides(self, guild_id: int) -> dict[str, Any]:
        """The values this server set itself, by name."""
        config = self.config(guild_id)
        return {name: getattr(config, name) for name in config.overridden}

    async def post_language(self, guild_id: int | None) -> Language:
        """The language of posts to a channel of this server (weather, tips, reminders)."""
        return self.config(guild_id).language

    async def thread_mode(self, guild_id: int | None, channel_id: int) -> ThreadMode:
        """Whether a mention in this server gets its answer in a thread the bot opens."""
        return cast(ThreadMode, self.config(guild_id).thread_conversations)

    async def refresh(self) -> int:
        """Read the versions and reload the servers whose settings changed; how many did."""
        async with self._sessions() as session:
            versions = dict(
                (
                    await session.execute(
                        select(ServerSettingsRow.guild_id, ServerSettingsRow.version)
                    )
                )
                .tuples()
                .all()
            )
            changed = [g for g, v in versions.items() if self._versions.get(g) != v]
            rows = (
                list(
                    await session.scalars(
                        select(ServerSettingsRow).where(ServerSettingsRow.guild_id.in_(changed))
                    )
                )
                if changed
                else []
            )
        for row in rows:
            if self._loaded:
                log.info("Settings of server %s changed; applied here", row.guild_id)
            self._remember(row.guild_id, row.version, _decode(row))
        for gone in set(self._versions) - set(versions):
            self._versions.pop(gone, None)
            self._configs.pop(gone, None)
        self._loaded = True
        return len(rows)

    async def refresh_quietly(self) -> None:
        """The periodic refresh: a failure keeps the settings already known (logged)."""
        try:
            await self.refresh()
        except Exception as exc:
            # The database away is said by its health; here one line, no traceback.
            log.warning(
                "Could not refresh server settings; keeping the known ones: %s",
                exc,
                exc_info=not is_unreachable(exc),
            )

    async def change(
        self, guild_id: int, values: Mapping[str, Any], by: int | None, *, reset: bool = False
    ) -> ServerConfig:
        """Set (or with reset, return to the default) settings of one server; the new
        effective settings apply in this process at once and in the others at their refresh."""
        unknown = set(values) - set(SETTINGS)
        if unknown:
            raise KeyError(f"unknown settings: {', '.join(sorted(unknown))}")
        async with one_writer(self._sessions), self._writes() as session, session.begin():
            row = await session.get(ServerSettingsRow, guild_id, with_for_update=True)
            current = _decode(row) if row is not None else {}
            if reset:
                for name in values:
                    current.pop(name, None)
            else:
                current.update(values)
            # Validate by building it: a bad value raises before anything is stored.
            config = effective(self.defaults, current)
            stored = json.dumps(to_json(current), ensure_ascii=False, sort_keys=True)
            now = self._clock.now()
            if row is None:
                row = ServerSettingsRow(
                    guild_id=guild_id, values=stored, version=1, updated_at=now, updated_by=by
                )
                session.add(row)
            else:
                row.values, row.version = stored, row.version + 1
                row.updated_at, row.updated_by = now, by
            version = row.version
        self._remember(guild_id, version, current)
        return config

    def forget(self, guild_id: int) -> None:
        """Drop a server from memory (its rows were deleted)."""
        self._versions.pop(guild_id, None)
        self._configs.pop(guild_id, None)

    @property
    def known(self) -> int:
        """How many servers have settings of their own."""
        return len(self._configs)

    def _remember(self, guild_id: int, version: int, values: Mapping[str, Any]) -> None:
        self._versions[guild_id] = version
        self._configs[guild_id] = effective(self.defaults, values)


def _decode(row: ServerSettingsRow) -> dict[str, Any]:
    try:
        stored = json.loads(row.values)
    except ValueError:
        log.warning("Server %s has unreadable settings; it uses the defaults", row.guild_id)
        return {}
    return from_json(stored) if isinstance(stored, dict) else {}
