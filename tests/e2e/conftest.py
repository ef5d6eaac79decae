"""Fixtures: a fake Discord, a scripted LLM and a fresh database (each engine) per test."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from tests.e2e.harness import BOT_DATABASE
from tests.fakes.discord_server import FakeDiscord, World
from tests.fakes.llm_server import ScriptedLLM


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    """A fresh fake Discord on 127.0.0.1."""
    async with FakeDiscord() as server:
        yield server


@pytest.fixture
async def two_servers() -> AsyncIterator[FakeDiscord]:
    """A fresh fake Discord whose bot is in two guilds ("Otomo Test" and "Otomo Second")."""
    async with FakeDiscord(World.two_guilds()) as server:
        yield server


@pytest.fixture
async def llm() -> AsyncIterator[ScriptedLLM]:
    """A scripted OpenAI-compatible endpoint on 127.0.0.1."""
    async with ScriptedLLM() as server:
        yield server


@pytest.fixture(autouse=True)
def bot_database(database_url: str) -> Iterator[str]:
    """Every end-to-end test runs once on SQLite and once on PostgreSQL, on a new database."""
    BOT_DATABASE.url = database_url
    yield database_url
    BOT_DATABASE.url = None
