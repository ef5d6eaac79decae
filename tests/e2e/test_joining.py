"""Joining a server welcomes it once; leaving keeps its data for the retention, then deletes it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select

from bot.members.permissions import Person
from bot.notes.table import Note
from bot.runtime.clock import ManualClock
from bot.storage.servers import ServerRow
from tests.conftest import START
from tests.e2e.harness import RunningBot, running_bot
from tests.fakes.discord.world import FakeGuild, World
from tests.fakes.discord_server import (
    GUILD_ID,
    SECOND_GENERAL_CHANNEL_ID,
    SECOND_GUILD_ID,
    FakeDiscord,
)
from tests.fakes.llm_server import ScriptedLLM

pytestmark = pytest.mark.e2e


@dataclass
class Later:
    """A fake Discord whose bot is in the first guild, and the guild it is invited to later."""

    fake: FakeDiscord
    guild: FakeGuild


@pytest.fixture
async def invited_later() -> AsyncIterator[Later]:
    """Two guilds, the bot in the first only until a test invites it to the second."""
    world = World.two_guilds()
    second = world.guilds.pop()
    async with FakeDiscord(world) as server:
        yield Later(server, second)


async def invite(later: Later) -> None:
    """The second guild's owner invites the bot (the fake world learns the guild then)."""
    fake = later.fake
    if fake.world.guild(SECOND_GUILD_ID) is None:
        fake.world.guilds.append(later.guild)
    payload = fake.world.guild_create_payload(with_members=False, guild_id=SECOND_GUILD_ID)
    # A join's GUILD_CREATE has no "unavailable" (that marks a known guild coming back).
    payload.pop("unavailable")
    await fake.dispatch("GUILD_CREATE", payload)


async def remove(fake: FakeDiscord, otomo: RunningBot) -> None:
    await fake.dispatch("GUILD_DELETE", {"id": str(SECOND_GUILD_ID)})
    await fake.wait_until(lambda: otomo.app.bot.get_guild(SECOND_GUILD_ID) is None)


async def recorded(otomo: RunningBot, check: Callable[[ServerRow], bool]) -> None:
    """Wait until the second server's row passes check (join and leave events are handled in
    the background)."""
    async with asyncio.timeout(10):
        while True:
            async with otomo.app.core.database.sessions() as session:
                row = await session.get(ServerRow, SECOND_GUILD_ID)
                if row is not None and check(row):
                    return
            await asyncio.sleep(0.05)


async def back_in(otomo: RunningBot) -> None:
    """Wait until the rejoin is recorded."""
    await recorded(otomo, lambda row: row.left_at is None)


async def welcomed(otomo: RunningBot) -> None:
    """Wait until the welcome is recorded."""
    await recorded(otomo, lambda row: row.welcomed_at is not None)


async def notes_of(otomo: RunningBot, guild_id: int) -> int:
    async with otomo.app.core.database.sessions() as session:
        return int(await session.scalar(select(func.count()).where(Note.guild_id == guild_id)) or 0)


async def test_joining_posts_one_bilingual_welcome_pointing_to_the_commands(
    tmp_path: Path, invited_later: Later, llm: ScriptedLLM
) -> None:
    fake = invited_later.fake
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        assert fake.messages(SECOND_GENERAL_CHANNEL_ID) == []
        await invite(invited_later)
        welcome = await fake.wait_for_message(SECOND_GENERAL_CHANNEL_ID)
        await welcomed(otomo)
        await remove(fake, otomo)
        await recorded(otomo, lambda row: row.left_at is not None)
        await invite(invited_later)
        await back_in(otomo)

    assert "/otomo settings" in welcome["content"] and "/otomo help" in welcome["content"]
    assert "こんにちは" in welcome["content"] and "Hi" in welcome["content"]
    assert len(fake.messages(SECOND_GENERAL_CHANNEL_ID)) == 1
    # The welcome can ping nobody, whatever it says.
    assert welcome["allowed_mentions"]["parse"] == []
    assert not welcome["allowed_mentions"].get("users")
    assert not welcome["allowed_mentions"].get("roles")
    assert welcome["mention_everyone"] is False and welcome["mentions"] == []


async def test_a_left_servers_data_is_kept_for_the_retention_then_deleted(
    tmp_path: Path, invited_later: Later, llm: ScriptedLLM
) -> None:
    fake = invited_later.fake
    clock = ManualClock(START)
    async with running_bot(
        tmp_path, fake=fake, llm=llm, clock=clock, SERVER_DATA_RETENTION_DAYS=30
    ) as otomo:
        core = otomo.app.core
        await invite(invited_later)
        await welcomed(otomo)
        files = {}
        for guild in (GUILD_ID, SECOND_GUILD_ID):
            await core.servers.change(guild, {"language": "en"}, 1)
            await core.deps.notebook.write(guild, 1, Person(1, "hana"), "覚えておくこと")
            files[guild] = tmp_path / "knowledge_base" / "servers" / str(guild) / "faq.md"
            files[guild].parent.mkdir(parents=True)
            files[guild].write_text("# FAQ\n", encoding="utf-8")
        await remove(fake, otomo)
        await recorded(otomo, lambda row: row.left_at is not None)

        clock.advance(timedelta(days=29))
        await core.retention.enforce()
        assert core.servers.config(SECOND_GUILD_ID).language == "en"
        assert await notes_of(otomo, SECOND_GUILD_ID) == 1
        assert files[SECOND_GUILD_ID].exists()

        clock.advance(timedelta(days=2))
        await core.retention.enforce()
        await core.servers.refresh()

        assert core.servers.config(SECOND_GUILD_ID).overridden == frozenset()
        assert await notes_of(otomo, SECOND_GUILD_ID) == 0
        assert not files[SECOND_GUILD_ID].parent.exists()
        assert core.servers.config(GUILD_ID).language == "en"
        assert await notes_of(otomo, GUILD_ID) == 1
        assert files[GUILD_ID].exists()


async def test_rejoining_before_the_retention_keeps_the_data(
    tmp_path: Path, invited_later: Later, llm: ScriptedLLM
) -> None:
    fake = invited_later.fake
    clock = ManualClock(START)
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        core = otomo.app.core
        await invite(invited_later)
        await welcomed(otomo)
        await core.servers.change(SECOND_GUILD_ID, {"language": "en"}, 1)
        await remove(fake, otomo)
        await recorded(otomo, lambda row: row.left_at is not None)
        clock.advance(timedelta(days=20))
        await invite(invited_later)
        await back_in(otomo)

        clock.advance(timedelta(days=40))
        await core.retention.enforce()

        assert core.servers.config(SECOND_GUILD_ID).language == "en"
    assert len(fake.messages(SECOND_GENERAL_CHANNEL_ID)) == 1
