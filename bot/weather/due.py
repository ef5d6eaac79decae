"""When a server's daily weather falls due: each day at its time, in its time zone."""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.servers.config import ServerConfig
from bot.servers.posts import Due, PostKind


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


def weather_due(config: ServerConfig, now: datetime, previous: datetime | None) -> Due | None:
    """The daily post not yet made since it last fell due, when the server has it on."""
    due = latest_daily(config, now)
    if not config.weather_enabled or config.weather_channel is None or due is None:
        return None
    if previous is not None and previous >= due:
        return None
    return Due(due)


DAILY_WEATHER = PostKind("weather", "Daily weather", weather_due)
