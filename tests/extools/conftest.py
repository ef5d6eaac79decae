"""A catalog of external tools on the test database, and the tools API in front of it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.agent.tools import ToolContext, ToolRegistry, tool
from bot.extools.api import ToolsAPI
from bot.extools.catalog import ExternalTools
from bot.extools.credentials import Credentials
from bot.runtime.clock import ManualClock
from bot.settings import Settings
from bot.storage import Database
from tests.fakes.plugin_server import FakePlugin

TOKEN = "test-token-0123456789abcdef"
HANDLERS = frozenset({"general", "chat", "reminder", "weather"})


@tool(requires_approval=False)
async def create_reminder(ctx: ToolContext, what: str) -> str:
    """A built-in tool whose name a plugin may not take."""
    return what


def make_catalog(
    database: Database,
    clock: ManualClock,
    registry: ToolRegistry,
    trusted: frozenset[str],
    **caps: int,
) -> ExternalTools:
    """A catalog as the bot builds it (caps: max_answer_bytes, max_result_chars)."""
    return ExternalTools(
        database.sessions,
        clock,
        registry,
        handler_names=HANDLERS,
        trusted_sources=trusted,
        check_every=3600,
        **caps,
    )


@dataclass
class Rig:
    """The registry, the catalog and an HTTP client of the API."""

    registry: ToolRegistry
    catalog: ExternalTools
    client: TestClient[Any, Any]
    plugin: FakePlugin
    context: Callable[..., ToolContext]
    credentials: Credentials

    async def register(self, token: str = TOKEN, **body: Any) -> tuple[int, dict[str, Any]]:
        """POST /api/tools/register; return status and JSON body."""
        payload = {
            "name": "roll_dice",
            "description": "Roll dice.",
            "parameters": {"type": "object", "properties": {"notation": {"type": "string"}}},
            "callback_url": self.plugin.callback_url,
            "source": "dice",
        }
        payload.update(body)
        return await self.post("/api/tools/register", payload, token)

    async def post(self, path: str, body: Any, token: str | None = TOKEN) -> tuple[int, Any]:
        """POST a JSON body with the bearer token (none when token is None)."""
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        response = await self.client.post(path, json=body, headers=headers)
        return response.status, await response.json()


@pytest.fixture
async def rig(
    database: Database, clock: ManualClock, make_settings: Callable[..., Settings]
) -> AsyncIterator[Rig]:
    """The API on 127.0.0.1 over a fresh catalog, and a fake plugin to call back."""
    registry = ToolRegistry([create_reminder])
    catalog = make_catalog(database, clock, registry, frozenset({"trusted_source"}))
    credentials = Credentials(database.sessions, clock)
    api = ToolsAPI(catalog, TOKEN, "127.0.0.1", 0, credentials)
    settings = make_settings()

    def context(**changes: Any) -> ToolContext:
        values: dict[str, Any] = {
            "user_id": 1,
            "user_name": "hana",
            "guild_id": None,
            "channel_id": 2,
            "clock": clock,
            "sessions": database.sessions,
            "settings": settings,
            "timezone": settings.timezone,
            "deps": None,
            "call_id": "call_1",
            "raw_arguments": '{"notation": "2d6"}',
        }
        values.update(changes)
        return ToolContext(**values)

    async with (
        FakePlugin() as plugin,
        TestClient(TestServer(api.app(), host="127.0.0.1")) as client,
    ):
        yield Rig(registry, catalog, client, plugin, context, credentials)
        await catalog.stop()


async def eventually(check: Callable[[], bool], timeout: float = 30.0) -> None:  # noqa: ASYNC109
    """Wait until check() holds (background work such as a reconnection), or fail."""
    async with asyncio.timeout(timeout):
        while True:
            if check():
                return
            await asyncio.sleep(0.05)
