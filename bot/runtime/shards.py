"""Which Discord shards this process runs, and what follows from it for shared work.

Discord sends each guild's events to shard `(guild_id >> 22) % shard_count` and DMs to shard 0.
Reminders follow the same rule, so a channel's pacing lives in exactly one process, and the
bot-wide request budget is split in proportion to the shards a process runs.
"""

from __future__ import annotations

import hashlib
import os
import socket
import uuid
from dataclasses import dataclass

# Discord's global limit: about 50 requests per second per bot, across all its processes.
BOT_REQUESTS_PER_SECOND = 50.0
# The shard that receives direct messages (they belong to no guild).
DM_SHARD = 0


@dataclass(frozen=True)
class ShardPlan:
    """count shards in all; this process runs ids (all of them when the bot is one process)."""

    count: int = 1
    ids: tuple[int, ...] = (0,)

    @classmethod
    def of(cls, count: int | None, ids: tuple[int, ...] | None) -> ShardPlan:
        """The plan from SHARD_COUNT / SHARD_IDS (either may be unset)."""
        total = count or 1
        return cls(total, tuple(sorted(set(ids))) if ids else tuple(range(total)))

    @property
    def sharded(self) -> bool:
        """True when the bot is split into several shards (this process may run only some)."""
        return self.count > 1

    @property
    def runs_every_shard(self) -> bool:
        """True when this process alone serves every guild and DM."""
        return len(self.ids) == self.count

    def shard_of(self, guild_id: int | None) -> int:
        """The shard a guild's events (and reminders) belong to; DMs go to shard 0."""
        return DM_SHARD if guild_id is None else (guild_id >> 22) % self.count

    def owns(self, guild_id: int | None) -> bool:
        """Whether this process runs the shard of guild_id."""
        return self.shard_of(guild_id) in self.ids

    def request_budget(self, bot_total: float = BOT_REQUESTS_PER_SECOND) -> float:
        """This process's share of the bot-wide requests per second: its shards' part."""
        return bot_total * len(self.ids) / self.count

    def identity(self) -> str:
        """A name that stays the same when this process restarts with the same shards."""
        listed = ",".join(map(str, self.ids))
        name = f"shards{listed}of{self.count}"
        if len(name) > 40:
            name = f"shards{hashlib.sha1(listed.encode()).hexdigest()[:12]}of{self.count}"
        return name


def default_worker_id() -> str:
    """host:pid:random, unique per process even when containers share a pid."""
    return f"{socket.gethostname()[:24]}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
