"""The channels feature: channels with something of their own, a persona on top of the server's
(in the stable part of the channel's prompts) and the listening cool-down that every process
shares.

The database is the truth. Personas are read into memory for a few seconds (every prompt of
the channel reads one; a change made through another process shows within that time); the
cool-down is a conditional write, so two processes never both take a channel's turn.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Protocol

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.agent.runs import PromptInput
from bot.channels import table, words
from bot.channels.server_settings import SERVER_SETTINGS
from bot.channels.settings import ChannelSettings
from bot.channels.table import ChannelSetting
from bot.handlers.builder import AppBuilder
from bot.handlers.declarations import Declarations
from bot.handlers.services import Shared
from bot.runtime.clock import Clock
from bot.storage.engine import one_writer, write_sessions

# Every handler answers in the channel's voice, not only chit-chat.
EVERY_HANDLER = "*"


# A channel persona rides in every prompt of its channel, after the server's.
CHANNEL_PERSONA_MAX_CHARS = 1000


class ChannelVoices:
    """Each channel's persona and listening turn, per server."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        *,
        fresh_seconds: float = 5.0,
    ) -> None:
        self._sessions = sessions
        # Read-then-write transactions: on SQLite they take the write lock at BEGIN.
        self._writes = write_sessions(sessions)
        self._clock = clock
        self._fresh = timedelta(seconds=fresh_seconds)
        # (guild, channel) -> (persona, read at): a prompt costs no query within `fresh`.
        self._personas: dict[tuple[int, int], tuple[str, datetime]] = {}

    async def persona(self, guild_id: int | None, channel_id: int) -> str:
        """This channel's own persona in this server ("" when it has none, and in DMs)."""
        if guild_id is None:
            return ""
        now = self._clock.now()
        known = self._personas.get((guild_id, channel_id))
        if known is not None and now - known[1] < self._fresh:
            return known[0]
        async with self._sessions() as session:
            row = await session.get(ChannelSetting, channel_id)
        persona = row.persona if row is not None and row.guild_id == guild_id else ""
        self._personas[(guild_id, channel_id)] = (persona, now)
        return persona

    async def personas(self, guild_id: int) -> dict[int, str]:
        """Every channel of this server with a persona of its own."""
        async with self._sessions() as session:
            rows = await session.scalars(
                select(ChannelSetting).where(
                    ChannelSetting.guild_id == guild_id, ChannelSetting.persona != ""
                )
            )
            return {row.channel_id: row.persona for row in rows}

    async def set_persona(
        self, guild_id: int, channel_id: int, persona: str, by: int | None
    ) -> str:
        """Give the channel its persona ("" removes it); the stored text."""
        text = persona.strip()[:CHANNEL_PERSONA_MAX_CHARS]
        now = self._clock.now()
        async with one_writer(self._sessions), self._writes() as session, session.begin():
            row = await _locked_row(session, guild_id, channel_id, now)
            if row.guild_id != guild_id:
                raise ValueError(f"channel {channel_id} is not a channel of server {guild_id}")
            row.persona, row.updated_at, row.updated_by = text, now, by
        self._personas[(guild_id, channel_id)] = (text, now)
        return text

    async def take_turn(self, guild_id: int, channel_id: int, cooldown: timedelta) -> bool:
        """True when Otomo may answer unasked in this channel now (and the turn is taken):
        nobody answered there unasked within the cool-down, in any process."""
        now = self._clock.now()
        try:
            async with one_writer(self._sessions), self._writes() as session, session.begin():
                row = await _locked_row(session, guild_id, channel_id, now)
                if row.guild_id != guild_id:
                    return False
                if row.heard_at is not None and now - row.heard_at < cooldown:
                    return False
                row.heard_at = now
                return True
        except IntegrityError:
            # Another process inserted the channel's first turn at the same moment.
            return False

    async def forget_server(self, guild_id: int) -> int:
        """Delete a departed server's channel rows; how many went."""
        async with one_writer(self._sessions), self._writes() as session, session.begin():
            result = await session.execute(
                delete(ChannelSetting).where(ChannelSetting.guild_id == guild_id)
            )
        self._personas = {k: v for k, v in self._personas.items() if k[0] != guild_id}
        return int(getattr(result, "rowcount", 0) or 0)


class ChannelsDeps(Protocol):
    """What the channels feature needs of the bot's services."""

    @property
    def channels(self) -> ChannelVoices:
        """Each channel's persona and listening turn."""
        ...


def channel_voice(persona: str) -> str:
    """The prompt section of a channel's persona (empty when it has none)."""
    if not persona.strip():
        return ""
    return (
        "このチャンネルでの話し方（サーバーのペルソナに加えて、このチャンネルだけ）:\n"
        "In this channel only, on top of the server's persona:\n" + persona.strip()
    )


def register(app: AppBuilder, deps: ChannelsDeps) -> None:
    """Add the channel's persona to every handler's stable prompt in that channel."""

    async def voice_section(prompt: PromptInput) -> str:
        # Stable: it changes only when an admin changes it, so the prompt cache holds.
        return channel_voice(await deps.channels.persona(prompt.guild_id, prompt.channel_id))

    app.add_section(voice_section, handlers=[EVERY_HANDLER])


def services(shared: Shared) -> dict[str, object]:
    """Each channel's own persona and listening cool-down."""
    fresh = shared.settings.server_settings_refresh_seconds
    return {"channels": ChannelVoices(shared.database.sessions, shared.clock, fresh_seconds=fresh)}


# What the feature brings to the shared layers: LISTEN_COOLDOWN_SECONDS, the listening settings
# of each server, /otomo channel's words, the channel settings table.
DECLARES = Declarations(
    settings=ChannelSettings,
    server_settings=SERVER_SETTINGS,
    words=words.COMMAND_WORDS,
    tables=table,
)


async def _locked_row(
    session: AsyncSession, guild_id: int, channel_id: int, now: datetime
) -> ChannelSetting:
    """The channel's row, locked for this write; a new one (no persona, never heard) if it
    has none yet."""
    row = await session.get(ChannelSetting, channel_id, with_for_update=True)
    if row is None:
        row = ChannelSetting(channel_id=channel_id, guild_id=guild_id, persona="", updated_at=now)
        session.add(row)
    return row
