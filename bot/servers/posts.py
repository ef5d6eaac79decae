"""Each server's scheduled posts, on its own schedule, caught up at start.

Features register the kinds of post (the daily weather, the tips): a name, and when a server's
post falls due given its settings and the last time one did. One job of the whole bot (run by
the holder of the jobs lease) looks every minute at every server the bot is in. When a
server's post is due it is handed to the Discord layer, and the time it fell due is written
down (`scheduled_posts`), so a post is made once per due time however many processes run or
restart. A post that fell due while every process was down is made at start when it is at
most WEATHER_NOTIFY_GRACE_MINUTES late, and skipped with a log line when later.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.runtime.clock import Clock
from bot.servers.config import ServerConfig
from bot.servers.directory import ServerDirectory
from bot.storage.engine import one_writer, write_sessions
from bot.storage.outage import is_unreachable
from bot.storage.servers import ScheduledPostRow, ServerRow

log = logging.getLogger(__name__)

POSTS_JOB_ID = "servers.posts"
# How often the job looks for due posts: a post is made within this long of its time.
TICK_SECONDS = 60

# Posts one server's post (the Discord layer); True when it was posted.
PostFor = Callable[[int, ServerConfig], Awaitable[bool]]


@dataclass(frozen=True)
class Due:
    """A post that fell due at `at`: recorded as done, and made unless `post` is False (a tip
    in quiet hours is skipped for its interval)."""

    at: datetime
    post: bool = True


# When a server's post fell due, given its settings, now and the last due time recorded (None
# before the first); None when none is due now.
DueAt = Callable[[ServerConfig, datetime, datetime | None], Due | None]


@dataclass(frozen=True)
class PostKind:
    """A kind of post every server may have (a feature's), on the server's own schedule."""

    name: str
    # What the log calls it ("Daily weather").
    title: str
    due: DueAt


class ScheduledPosts:
    """Finds each server's due posts and records them as done."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        servers: ServerDirectory,
        grace_minutes: int,
        kinds: Sequence[PostKind] = (),
    ) -> None:
        self._sessions = sessions
        self._writes = write_sessions(sessions)
        self._clock = clock
        self._servers = servers
        self.grace = timedelta(minutes=grace_minutes)
        self._kinds = tuple(kinds)

    async def run(self, posts: Mapping[str, PostFor]) -> list[tuple[int, str]]:
        """One look at every server: make the posts that are due (by kind's name; a kind
        without a poster is not looked at); what was posted."""
        kinds = [(kind, posts[kind.name]) for kind in self._kinds if kind.name in posts]
        now = self._clock.now()
        async with self._sessions() as session:
            guilds = list(
                await session.scalars(select(ServerRow.guild_id).where(ServerRow.left_at.is_(None)))
            )
            last = {
                (row.guild_id, row.kind): row.last_run_at
                for row in await session.scalars(select(ScheduledPostRow))
            }
        posted: list[tuple[int, str]] = []
        for guild_id in guilds:
            config = self._servers.config(guild_id)
            for kind, post in kinds:
                previous = last.get((guild_id, kind.name))
                if await self._post(kind, guild_id, config, now, previous, post):
                    posted.append((guild_id, kind.name))
        return posted

    async def _post(
        self,
        kind: PostKind,
        guild_id: int,
        config: ServerConfig,
        now: datetime,
        previous: datetime | None,
        post: PostFor,
    ) -> bool:
        due = kind.due(config, now, previous)
        if due is None:
            return False
        await self._record(guild_id, kind.name, due.at)
        if not due.post:
            return False
        late = now - due.at
        if late > self.grace:
            log.info(
                "%s of server %s due at %s skipped: %d minutes late, more than "
                "WEATHER_NOTIFY_GRACE_MINUTES (%d)",
                kind.title,
                guild_id,
                due.at.astimezone(config.zone).strftime("%Y-%m-%d %H:%M"),
                late.total_seconds() // 60,
                self.grace.total_seconds() // 60,
            )
            return False
        return await _attempt(post, guild_id, config, kind.name)

    async def _record(self, guild_id: int, kind: str, at: datetime) -> None:
        async with one_writer(self._sessions), self._writes() as session, session.begin():
            row = await session.get(ScheduledPostRow, (guild_id, kind))
            if row is None:
                session.add(ScheduledPostRow(guild_id=guild_id, kind=kind, last_run_at=at))
            else:
                row.last_run_at = at


async def run_quietly(posts: ScheduledPosts, posters: Mapping[str, PostFor]) -> None:
    """The job: a failure (the database away) is logged, and the next tick tries again."""
    try:
        await posts.run(posters)
    except Exception as exc:
        # The database away is said by its health; here one line, no traceback.
        log.warning(
            "Could not look for due scheduled posts; trying again: %s",
            exc,
            exc_info=not is_unreachable(exc),
        )


async def _attempt(post: PostFor, guild_id: int, config: ServerConfig, kind: str) -> bool:
    """Post; a failure is logged (the post's own sentence) and never stops the other servers."""
    try:
        return await post(guild_id, config)
    except Exception:
        log.exception("The %s post of server %s failed", kind, guild_id)
        return False
