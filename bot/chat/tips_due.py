"""When a server's どうでもいいTips fall due: every interval of its own, outside quiet hours."""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.servers.config import ServerConfig, in_quiet_hours
from bot.servers.posts import Due, PostKind


def tips_due(config: ServerConfig, now: datetime, previous: datetime | None) -> Due | None:
    """A tip once each interval, when the server has tips on."""
    if not config.tips_enabled or config.tips_channel is None:
        return None
    if previous is not None and now - previous < timedelta(hours=config.tips_interval_hours):
        return None
    # The interval starts when tips are first seen on (as the old interval job did); a tip
    # due in quiet hours is skipped for this interval.
    quiet = in_quiet_hours(now.astimezone(config.zone), config.tips_quiet_hours)
    return Due(now, post=previous is not None and not quiet)


TIPS_POST = PostKind("tips", "Tips", tips_due)
