"""Whose data a read or write is about: one server (the tenant), or a member's DMs.

Every server's knowledge files, change log, web-search archive, word pool, tips history, grants
and notes carry its guild id; shared rows (the operator's knowledge base, rows from before
servers had their own) carry none. A server sees the shared rows and its own; a DM is its own
scope and sees the shared rows only. Passed explicitly from the mention, command or job that
knows where it happens down to the query, never held in a global.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

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
