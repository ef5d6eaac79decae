"""Each incoming message is answered once, however many processes receive it.

Two processes can receive the same gateway event: a rolling restart where old and new overlap,
or two processes given the same shard by mistake. Before answering, a process inserts the
message's key; the database's unique key lets exactly one insert succeed on SQLite and
PostgreSQL alike, and only that process answers. Claims are kept for a while (Discord does not
send a message again hours later) and then swept.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy import delete
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.runtime.clock import Clock, SystemClock
from bot.storage.claims import MessageClaim
from bot.storage.outage import DatabaseHealth

log = logging.getLogger(__name__)

KEEP = timedelta(hours=6)
SWEEP_SECONDS = 600
SWEEP_JOB_ID = "message_claims.sweep"


class MessageClaims:
    """Claims on incoming messages and commands, one winner per key."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        holder: str,
        *,
        clock: Clock | None = None,
        health: DatabaseHealth | None = None,
    ) -> None:
        self._sessions = sessions
        self.holder = holder[:64]
        self._clock = clock or SystemClock()
        self._health = health or DatabaseHealth()

    async def claim(self, key: str) -> bool:
        """True if this process is the one to answer key (it inserted the claim first)."""
        try:
            async with self._sessions() as session, session.begin():
                session.add(
                    MessageClaim(
                        key=key[:100], holder=self.holder, expires_at=self._clock.now() + KEEP
                    )
                )
        except IntegrityError:
            return False
        except Exception as exc:
            # Without the database nothing can be recorded anyway: answering (maybe twice)
            # is better than losing the message.
            if not self._health.noticed(exc):
                log.warning("Could not claim %s; answering it anyway", key, exc_info=True)
            return True
        return True

    async def sweep(self) -> int:
        """Delete the claims that ran out; how many were."""
        async with self._sessions() as session, session.begin():
            result = await session.execute(
                delete(MessageClaim)
                .where(MessageClaim.expires_at <= self._clock.now())
                .execution_options(synchronize_session=False)
            )
        return int(result.rowcount)  # type: ignore[attr-defined]


def message_key(message_id: int) -> str:
    """The claim of a new message."""
    return f"message:{message_id}"
