"""Each server's scheduled posts: due in its own time zone, once per due time, caught up at
start within the grace and skipped when later, and never for a server the bot left."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.chat.tips_due import TIPS_POST
from bot.runtime.clock import ManualClock
from bot.servers.config import ServerConfig, defaults_of
from bot.servers.directory import ServerDirectory
from bot.servers.membership import Membership
from bot.servers.posts import PostFor, ScheduledPosts
from bot.settings import Settings
from bot.storage import Database
from bot.weather.due import DAILY_WEATHER

TOKYO = ZoneInfo("Asia/Tokyo")
NEW_YORK = ZoneInfo("America/New_York")
ONE = 111_111_111_111_111_111
TWO = 222_222_222_222_222_222
CHANNEL = 333_333_333_333_333_333
KINDS = (DAILY_WEATHER, TIPS_POST)
WEATHER, TIPS = DAILY_WEATHER.name, TIPS_POST.name


class Posted:
    """Records which server's post was made."""

    def __init__(self) -> None:
        self.made: list[tuple[int, str]] = []

    def of(self, kind: str) -> PostFor:
        async def post(guild_id: int, config: ServerConfig) -> bool:
            self.made.append((guild_id, kind))
            return True

        return post

    def posters(self) -> dict[str, PostFor]:
        return {WEATHER: self.of(WEATHER), TIPS: self.of(TIPS)}


async def rig(
    database: Database, clock: ManualClock, settings: Settings, *guilds: int
) -> tuple[ServerDirectory, ScheduledPosts]:
    servers = ServerDirectory(database.sessions, clock, defaults_of(settings))
    await Membership(database.sessions, clock, servers, 30).present(guilds)
    return servers, ScheduledPosts(
        database.sessions, clock, servers, settings.weather_notify_grace_minutes, KINDS
    )


WEATHER_AT_SEVEN = {
    "weather_enabled": True,
    "weather_channel": CHANNEL,
    "weather_time": time(7, 0),
}


async def test_each_server_posts_at_its_own_time_in_its_own_time_zone(
    database: Database, clock: ManualClock, make_settings: Callable[..., Settings]
) -> None:
    servers, posts = await rig(database, clock, make_settings(), ONE, TWO)
    await servers.change(ONE, WEATHER_AT_SEVEN, 1)
    await servers.change(TWO, {**WEATHER_AT_SEVEN, "timezone": "America/New_York"}, 1)
    posted = Posted()

    clock.set(datetime(2026, 12, 1, 7, 0, tzinfo=TOKYO))
    first = await posts.run(posted.posters())
    again = await posts.run(posted.posters())
    clock.set(datetime(2026, 12, 1, 7, 5, tzinfo=NEW_YORK))
    second = await posts.run(posted.posters())

    assert first == [(ONE, WEATHER)]
    assert again == []
    assert second == [(TWO, WEATHER)]


async def test_a_post_due_while_the_bot_was_down_is_made_within_the_grace_only(
    database: Database,
    clock: ManualClock,
    make_settings: Callable[..., Settings],
    caplog: pytest.LogCaptureFixture,
) -> None:
    settings = make_settings(WEATHER_NOTIFY_GRACE_MINUTES=30)
    servers, posts = await rig(database, clock, settings, ONE)
    await servers.change(ONE, WEATHER_AT_SEVEN, 1)
    posted = Posted()
    clock.set(datetime(2026, 11, 30, 7, 0, tzinfo=TOKYO))
    await posts.run(posted.posters())

    # Down from Monday 07:00 until Tuesday 07:20: inside the grace, posted at start.
    clock.set(datetime(2026, 12, 1, 7, 20, tzinfo=TOKYO))
    late = await posts.run(posted.posters())
    # Down until Wednesday 08:00: an hour late, skipped with a line saying so.
    caplog.set_level(logging.INFO, logger="bot.servers.posts")
    clock.set(datetime(2026, 12, 2, 8, 0, tzinfo=TOKYO))
    too_late = await posts.run(posted.posters())

    assert late == [(ONE, WEATHER)]
    assert too_late == []
    assert any("skipped: 60 minutes late" in r.getMessage() for r in caplog.records)
    clock.set(datetime(2026, 12, 3, 7, 0, tzinfo=TOKYO))
    assert await posts.run(posted.posters()) == [(ONE, WEATHER)]


async def test_a_post_is_made_once_however_many_processes_look(
    database: Database, clock: ManualClock, make_settings: Callable[..., Settings]
) -> None:
    settings = make_settings()
    servers, here = await rig(database, clock, settings, ONE)
    await servers.change(ONE, WEATHER_AT_SEVEN, 1)
    there = ScheduledPosts(database.sessions, clock, servers, 30, KINDS)
    posted = Posted()
    clock.set(datetime(2026, 12, 1, 7, 1, tzinfo=TOKYO))

    await here.run(posted.posters())
    await there.run(posted.posters())

    assert posted.made == [(ONE, WEATHER)]


async def test_tips_follow_the_servers_interval_and_quiet_hours(
    database: Database, clock: ManualClock, make_settings: Callable[..., Settings]
) -> None:
    servers, posts = await rig(database, clock, make_settings(), ONE, TWO)
    await servers.change(
        ONE,
        {
            "tips_enabled": True,
            "tips_channel": CHANNEL,
            "tips_interval_hours": 2.0,
            "tips_quiet_hours": (0, 8),
        },
        1,
    )
    posted = Posted()
    clock.set(datetime(2026, 12, 1, 5, 0, tzinfo=TOKYO))
    await posts.run(posted.posters())  # the interval starts

    clock.advance(timedelta(hours=2))  # 07:00, quiet
    quiet = await posts.run(posted.posters())
    clock.advance(timedelta(hours=1))  # 08:00, an hour into the next interval
    early = await posts.run(posted.posters())
    clock.advance(timedelta(hours=1))  # 09:00
    due = await posts.run(posted.posters())

    assert (quiet, early, due) == ([], [], [(ONE, TIPS)])


async def test_a_server_the_bot_left_gets_no_post(
    database: Database, clock: ManualClock, make_settings: Callable[..., Settings]
) -> None:
    servers, posts = await rig(database, clock, make_settings(), ONE)
    await servers.change(ONE, WEATHER_AT_SEVEN, 1)
    await Membership(database.sessions, clock, servers, 30).left(ONE)
    clock.set(datetime(2026, 12, 1, 7, 0, tzinfo=TOKYO))

    assert await posts.run(Posted().posters()) == []
