"""Each server's scheduled posts (daily weather, tips), on its own schedule, caught up at start.

One job of the whole bot (run by the holder of the jobs lease) looks every minute at every
server the bot is in. When a server's post is due it is handed to the Discord layer, and the
time it fell due is written down (`scheduled_posts`), so a post is made once per due time
however many processes run or restart. A daily post that fell due while every process was
down is made at start when it is at most WEATHER_NOTIFY_GRACE_MINUTES late, and skipped with a
log line when later.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.runtime.clock import Clock
from bot.servers.config import ServerConfig, in_quiet_hours
from bot.servers.directory import ServerDirectory
from bot.storage.engine import one_writer, write_sessions
from bot.storage.outage import is_unreachable
from bot.storage.servers import ScheduledPostRow, ServerRow

log = logging.getLogger(__name__)

POSTS_JOB_ID = "servers.posts"
# How often the job looks for due posts: a post is made within this long of its time.
TICK_SECONDS = 60
WEATHER = "weather"
TIPS = "tips"

# Posts one server's post (the Discord layer); True when it was posted.
PostFor = Callable[[int, ServerConfig], Awaitable[bool]]


def latest_daily(config: ServerConfig, now: datetime) -> datetime | None:
    """The latest time at or before now when the server's daily weather fell due (UTC)."""
    if config.weather_time is None:
        return None
    zone = config.zone
    local = now.astimezone(zone)
    due = datetime.combine(local.date(), config.weather_time, tzinfo=zone)
    if due > local:
        due = datetime.combine(local.date() - timedelta(days=1), config.weather_time, tzinfo=zone)
    return due.astimezone(now.tzinfo)


class ScheduledPosts:
    """Finds each server's due posts and records them as done."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        servers: ServerDirectory,
        grace_minutes: int,
    ) -> None:
        self._sessions = sessions
        self._writes = write_sessions(sessions)
        self._clock = clock
        self._servers = servers
        self.grace = timedelta(minutes=grace_minutes)

    async def run(self, posts: Mapping[str, PostFor]) -> list[tuple[int, str]]:
        """One look at every server: make the posts that are due (by kind: WEATHER, TIPS; a
        kind without a poster is not looked at); what was posted."""
        post_weather, post_tip = posts.get(WEATHER), posts.get(TIPS)
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
            if post_weather is not None and await self._weather(
                guild_id, config, now, last.get((guild_id, WEATHER)), post_weather
            ):
                posted.append((guild_id, WEATHER))
            if post_tip is not None and await self._tips(
                guild_id, config, now, last.get((guild_id, TIPS)), post_tip
            ):
                posted.append((guild_id, TIPS))
        return posted

    async def _weather(
        self,
        guild_id: int,
        config: ServerConfig,
        now: datetime,
        previous: datetime | None,
        post: PostFor,
    ) -> bool:
        due = latest_daily(config, now)
        if not config.weather_enabled or config.weather_channel is None or due is None:
            return False
        if previous is not None and previous >= due:
            return False
        await self._record(guild_id, WEATHER, due)
        late = now - due
        if late > self.grace:
            log.info(
                "Daily weather of server %s due at %s skipped: %d minutes late, more than "
                "WEATHER_NOTIFY_GRACE_MINUTES (%d)",
                guild_id,
                due.astimezone(config.zone).strftime("%Y-%m-%d %H:%M"),
                late.total_seconds() // 60,
                self.grace.total_seconds() // 60,
            )
            return False
        return await _attempt(post, guild_id, config, WEATHER)

    async def _tips(
        self,
        guild_id: int,
        config: ServerConfig,
        now: datetime,
        previous: datetime | None,
        post: PostFor,
    ) -> bool:
        if not config.tips_enabled or config.tips_channel is None:
            return False
        if previous is not None and now - previous < timedelta(hours=config.tips_interval_hours):
            return False
        # The interval starts when tips are first seen on (as the old interval job did); a tip
        # due in quiet hours is skipped for this interval.
        await self._record(guild_id, TIPS, now)
        if previous is None or in_quiet_hours(now.astimezone(config.zone), config.tips_quiet_hours):
            return False
        return await _attempt(post, guild_id, config, TIPS)

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
