"""Noticing that the database went away and came back, saying so once each way.

A PostgreSQL restart or a SQLite file locked by another program is not a bug in the bot: the
callers that retry (reminder delivery, the jobs lease, background flushes) report such errors
here instead of logging a traceback each, and wait `retry_delay()` before trying again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import TypeVar

from sqlalchemy.exc import DBAPIError, DisconnectionError, InterfaceError, OperationalError

log = logging.getLogger("bot.storage")

RETRY_FIRST_SECONDS = 0.5
# A reconnect attempt is one cheap round trip; retry often enough to resume soon after.
RETRY_MAX_SECONDS = 5.0
# Errors asyncpg raises while a server shuts down, starts up or drops the connection.
_CONNECTION_ERRORS = frozenset(
    {
        "AdminShutdownError",
        "CannotConnectNowError",
        "ConnectionDoesNotExistError",
        "ConnectionFailureError",
        "ConnectionRejectionError",
        "CrashShutdownError",
        "InterfaceError",
        "InternalClientError",
        "PostgresConnectionError",
        "TooManyConnectionsError",
    }
)

# What SQLite says when another program holds the file or it cannot be opened now.
_SQLITE_AWAY = (
    "database is locked",
    "database is busy",
    "database table is locked",
    "unable to open database file",
    "disk i/o error",
)

Result = TypeVar("Result")


def _from_sqlite(error: DBAPIError) -> bool:
    return type(error.orig).__module__.startswith("sqlite3")


def is_unreachable(exc: BaseException) -> bool:
    """True when exc means the database cannot be reached (or is locked) right now, rather
    than that a statement was wrong: the same statement may succeed later."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, DBAPIError) and current.connection_invalidated:
            return True
        if isinstance(current, OperationalError) and _from_sqlite(current):
            # SQLite reports a missing table as an OperationalError too: only these are away.
            return any(words in str(current.orig).lower() for words in _SQLITE_AWAY)
        if isinstance(current, OperationalError | InterfaceError | DisconnectionError):
            return True
        if isinstance(current, OSError | TimeoutError | ConnectionError):
            return True
        if type(current).__name__ in _CONNECTION_ERRORS:
            return True
        current = current.__cause__ or current.__context__
    return False


def _reason(exc: BaseException) -> str:
    """The innermost error's first line, short: enough to tell a refusal from a lock."""
    inner: BaseException = exc
    while inner.__cause__ is not None:
        inner = inner.__cause__
    lines = str(inner).strip().splitlines() or [type(inner).__name__]
    return f"{type(inner).__name__}: {lines[0][:160]}"


class DatabaseHealth:
    """Whether this process can use its database, as seen by the callers that retry."""

    def __init__(self) -> None:
        self._down_since: float | None = None
        self._failures = 0

    @property
    def down(self) -> bool:
        """True from the first unreachable error until the next success."""
        return self._down_since is not None

    def noticed(self, exc: BaseException) -> bool:
        """True if exc means the database is unreachable (said once per outage); False for
        any other error, which the caller should handle as before."""
        if not is_unreachable(exc):
            return False
        self._failures += 1
        if self._down_since is None:
            self._down_since = time.monotonic()
            log.warning(
                "The database is unreachable (%s); Otomo keeps running, answers mentions with "
                "a sentence, holds reminders and reconnects by itself",
                _reason(exc),
            )
        return True

    def recovered(self) -> None:
        """A write went through: if the database was down, say it is back."""
        if self._down_since is None:
            return
        took = time.monotonic() - self._down_since
        self._down_since = None
        self._failures = 0
        log.warning("The database is reachable again after %.0f s; reminders resume", took)

    def retry_delay(self) -> float:
        """Seconds to wait before the next attempt: doubling from 0.5 s up to 5 s."""
        exponent = max(0, self._failures - 1)
        return float(min(RETRY_MAX_SECONDS, RETRY_FIRST_SECONDS * 2 ** min(exponent, 10)))

    @contextlib.contextmanager
    def tolerated(
        self, retry: Callable[[float], None] | None = None, *, recovers: bool = True
    ) -> Iterator[None]:
        """Inside, an unreachable database is noticed instead of raised, and retry(seconds)
        is told when to try again; finishing (if recovers) counts as the database being back."""
        try:
            yield
        except Exception as exc:
            if not self.noticed(exc):
                raise
            if retry is not None:
                retry(self.retry_delay())
        else:
            if recovers:
                self.recovered()

    async def until_reachable(self, attempt: Callable[[], Awaitable[Result]]) -> Result:
        """attempt(), repeated after retry_delay() while the database is unreachable."""
        while True:
            try:
                result = await attempt()
            except Exception as exc:
                if not self.noticed(exc):
                    raise
                await asyncio.sleep(self.retry_delay())
            else:
                self.recovered()
                return result
