"""Per-user preferences (time zone) as a small service over the user_settings table."""

from __future__ import annotations

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.runtime.clock import Clock
from bot.storage.engine import write_sessions
from bot.storage.users import UserSettings


class UnknownTimezone(ValueError):
    """The name is not an IANA time zone."""


def parse_timezone(name: str) -> ZoneInfo:
    """A ZoneInfo for an IANA name, or UnknownTimezone with a sentence."""
    try:
        return ZoneInfo(name.strip())
    except (ZoneInfoNotFoundError, ValueError):
        raise UnknownTimezone(
            f"{name!r} is not a time zone I know: use an IANA name such as Asia/Tokyo, "
            "Europe/London or America/New_York"
        ) from None


def timezone_names(prefix: str = "", limit: int = 25) -> list[str]:
    """IANA names matching prefix case-insensitively (for autocomplete)."""
    # People type "new york" for America/New_York.
    needle = prefix.strip().lower().replace(" ", "_")
    names = sorted(n for n in available_timezones() if "/" in n and needle in n.lower())
    return names[:limit]


class UserPreferences:
    """Reads and writes user preferences; the bot's default zone applies when unset."""

    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], clock: Clock, default_tz: ZoneInfo
    ) -> None:
        self._sessions = sessions
        # It reads before it writes: on SQLite the write lock is taken at BEGIN, or the
        # upgrade from reading would fail at once while another writer holds the lock.
        self._writes = write_sessions(sessions)
        self._clock = clock
        self.default_tz = default_tz

    async def timezone(self, user_id: int) -> ZoneInfo:
        """The user's zone, or the bot's default."""
        async with self._sessions() as session:
            row = await session.get(UserSettings, user_id)
        if row is None or not row.timezone:
            return self.default_tz
        try:
            return ZoneInfo(row.timezone)
        except (ZoneInfoNotFoundError, ValueError):
            return self.default_tz

    async def set_timezone(self, user_id: int, name: str) -> ZoneInfo:
        """Store the user's zone after validating it."""
        zone = parse_timezone(name)
        async with self._writes() as session, session.begin():
            row = await session.get(UserSettings, user_id)
            if row is None:
                row = UserSettings(user_id=user_id, updated_at=self._clock.now())
                session.add(row)
            row.timezone = zone.key
            row.updated_at = self._clock.now()
        return zone
