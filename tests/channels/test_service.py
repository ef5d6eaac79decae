"""A channel's persona and its listening turn, per server, shared by every process."""

from __future__ import annotations

from datetime import timedelta

from bot.channels.feature import ChannelVoices
from bot.runtime.clock import ManualClock
from bot.storage.engine import Database

GUILD_A, GUILD_B = 111, 222
CHANNEL_A, CHANNEL_B = 1001, 2001
COOL = timedelta(seconds=120)


async def test_a_channel_persona_belongs_to_its_server_only(
    database: Database, clock: ManualClock
) -> None:
    voices = ChannelVoices(database.sessions, clock)
    await voices.set_persona(GUILD_A, CHANNEL_A, "  関西弁で話す  ", by=7)

    assert await voices.persona(GUILD_A, CHANNEL_A) == "関西弁で話す"
    assert await voices.persona(GUILD_B, CHANNEL_A) == ""
    assert await voices.persona(GUILD_A, CHANNEL_B) == ""
    assert await voices.personas(GUILD_A) == {CHANNEL_A: "関西弁で話す"}
    assert await voices.personas(GUILD_B) == {}


async def test_a_change_made_by_another_process_shows_once_the_memory_is_stale(
    database: Database, clock: ManualClock
) -> None:
    here = ChannelVoices(database.sessions, clock, fresh_seconds=5)
    there = ChannelVoices(database.sessions, clock, fresh_seconds=5)
    assert await here.persona(GUILD_A, CHANNEL_A) == ""
    await there.set_persona(GUILD_A, CHANNEL_A, "海賊", by=7)
    clock.advance(timedelta(seconds=6))
    assert await here.persona(GUILD_A, CHANNEL_A) == "海賊"


async def test_one_turn_per_cool_down_across_processes(
    database: Database, clock: ManualClock
) -> None:
    here = ChannelVoices(database.sessions, clock)
    there = ChannelVoices(database.sessions, clock)

    assert await here.take_turn(GUILD_A, CHANNEL_A, COOL)
    assert not await there.take_turn(GUILD_A, CHANNEL_A, COOL)
    # Another channel has a cool-down of its own.
    assert await there.take_turn(GUILD_A, CHANNEL_B, COOL)
    clock.advance(COOL)
    assert await there.take_turn(GUILD_A, CHANNEL_A, COOL)


async def test_a_departed_servers_channels_are_forgotten(
    database: Database, clock: ManualClock
) -> None:
    voices = ChannelVoices(database.sessions, clock)
    await voices.set_persona(GUILD_A, CHANNEL_A, "海賊", by=7)
    await voices.set_persona(GUILD_B, CHANNEL_B, "忍者", by=8)

    assert await voices.forget_server(GUILD_A) == 1
    assert await voices.persona(GUILD_A, CHANNEL_A) == ""
    assert await voices.persona(GUILD_B, CHANNEL_B) == "忍者"
