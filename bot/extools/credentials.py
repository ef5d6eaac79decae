"""Plugin credentials: a token per plugin, made by the operator, stored as a hash.

A plugin's token registers tools only under its own source, and only a tool registered with
its source's own token is trusted (`TRUSTED_TOOL_SOURCES`). The shared `TOOLS_API_TOKEN` keeps
working, but it cannot speak for a source that has its own credential, and nothing it registers
skips approval: anyone holding it could claim any source.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.runtime.clock import Clock
from bot.storage.engine import one_writer, write_sessions
from bot.storage.external_tools import ExternalToolRow, ToolCredentialRow

# Recognisable in a leaked file or log; the rest is 256 random bits.
TOKEN_PREFIX = "otomo_pt_"


@dataclass(frozen=True)
class Caller:
    """Who is calling the tools API: the shared token, or one plugin's credential."""

    source: str | None = None
    credential_id: int | None = None

    @property
    def shared(self) -> bool:
        """True for the shared TOOLS_API_TOKEN (and the bot's own code)."""
        return self.credential_id is None


SHARED = Caller()


@dataclass(frozen=True)
class CredentialSummary:
    """A source's credentials as `tools token list` shows them."""

    source: str
    count: int
    tools: int


def token_hash(token: str) -> str:
    """What is stored of a token: its SHA-256 (a random 256-bit token needs no slow hash)."""
    return hashlib.sha256(token.encode()).hexdigest()


class Credentials:
    """Creates, checks and revokes plugin credentials."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], clock: Clock) -> None:
        self._sessions = sessions
        self._writes = write_sessions(sessions)
        self._clock = clock

    async def create(self, source: str) -> str:
        """A new token for source; only its hash is kept, so this is the one chance to see it."""
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        async with one_writer(self._sessions), self._writes() as session, session.begin():
            session.add(
                ToolCredentialRow(
                    source=source, token_hash=token_hash(token), created_at=self._clock.now()
                )
            )
        return token

    async def caller(self, token: str) -> Caller | None:
        """The plugin this token belongs to; None when it is no plugin's token."""
        if not token.startswith(TOKEN_PREFIX):
            return None
        async with self._sessions() as session:
            row = await session.scalar(
                select(ToolCredentialRow).where(ToolCredentialRow.token_hash == token_hash(token))
            )
        return None if row is None else Caller(row.source, row.id)

    async def summaries(self) -> list[CredentialSummary]:
        """Every source with credentials, with how many and how many tools they registered."""
        async with self._sessions() as session:
            counted = list(
                (
                    await session.execute(
                        select(ToolCredentialRow.source, func.count())
                        .group_by(ToolCredentialRow.source)
                        .order_by(ToolCredentialRow.source)
                    )
                ).tuples()
            )
            registered = (
                await session.execute(
                    select(ExternalToolRow.source, func.count())
                    .where(ExternalToolRow.credential_id.is_not(None))
                    .group_by(ExternalToolRow.source)
                )
            ).tuples()
            tools = {source: count for source, count in registered}
        return [CredentialSummary(s, n, tools.get(s, 0)) for s, n in counted]

    async def revoke(self, source: str) -> tuple[int, list[str]]:
        """Delete source's credentials and the tools registered with them; (how many, names)."""
        async with one_writer(self._sessions), self._writes() as session, session.begin():
            ids = list(
                await session.scalars(
                    select(ToolCredentialRow.id).where(ToolCredentialRow.source == source)
                )
            )
            if not ids:
                return 0, []
            names = list(
                await session.scalars(
                    select(ExternalToolRow.name).where(ExternalToolRow.credential_id.in_(ids))
                )
            )
            await session.execute(
                delete(ExternalToolRow).where(ExternalToolRow.credential_id.in_(ids))
            )
            await session.execute(delete(ToolCredentialRow).where(ToolCredentialRow.id.in_(ids)))
        return len(ids), sorted(names)
