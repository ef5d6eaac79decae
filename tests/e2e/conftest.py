"""Fixtures: a fake Discord and a scripted LLM per test."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.fakes.discord_server import FakeDiscord
from tests.fakes.llm_server import ScriptedLLM


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    """A fresh fake Discord on 127.0.0.1."""
    async with FakeDiscord() as server:
        yield server


@pytest.fixture
async def llm() -> AsyncIterator[ScriptedLLM]:
    """A scripted OpenAI-compatible endpoint on 127.0.0.1."""
    async with ScriptedLLM() as server:
        yield server
