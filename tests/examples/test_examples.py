"""The examples run as docs/tools.md says: the plugin started from the bot's folder registers
with the running bot using the bot's own .env, and the mcpServers file starts the MCP server."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from tests.e2e.harness import bot_environment
from tests.e2e.processes import START_LIMIT, BotProcess, process_environment
from tests.fakes.discord_server import GENERAL_CHANNEL_ID, HANA_ID, FakeDiscord
from tests.fakes.llm_server import ChatRequest, Reply, ScriptedLLM, text
from tests.fakes.local_server import free_port

pytestmark = pytest.mark.e2e

PROJECT = Path(__file__).resolve().parents[2]
TOKEN = "example-token-0123456789"


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    """A fake Discord."""
    async with FakeDiscord() as server:
        yield server


@pytest.fixture
async def llm() -> AsyncIterator[ScriptedLLM]:
    """A scripted model that says which tools it was offered."""
    async with ScriptedLLM() as server:

        def answer(request: ChatRequest) -> Reply:
            return text("offered: " + " ".join(request.tool_names))

        server.rule = answer
        yield server


def bot_folder(tmp_path: Path, port: int) -> Path:
    """A bot's folder as the docs set it up: the examples, the venv and this .env."""
    (tmp_path / "examples").symlink_to(PROJECT / "examples")
    (tmp_path / ".venv").symlink_to(Path(sys.executable).parents[1])
    (tmp_path / ".env").write_text(
        f"TOOLS_API_PORT={port}\n"
        f"TOOLS_API_TOKEN={TOKEN}\n"
        "MCP_SERVERS_FILE=examples/mcp_servers.json\n"
    )
    return tmp_path


async def registered(port: int) -> set[str]:
    """Names of the available tools the bot's tools API lists."""
    async with (
        aiohttp.ClientSession() as http,
        http.get(
            f"http://127.0.0.1:{port}/api/tools", headers={"Authorization": f"Bearer {TOKEN}"}
        ) as response,
    ):
        tools = (await response.json())["tools"]
    return {t["name"] for t in tools if t["available"]}


async def test_the_plugin_and_the_mcp_server_start_as_the_docs_say(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    if not (Path(sys.executable).parents[1] / "pyvenv.cfg").is_file():
        pytest.skip("the tests do not run in a venv: mcp_servers.json names .venv/bin/python")
    port = free_port()
    folder = bot_folder(tmp_path, port)
    # The settings the docs do not mention (where Discord and the model are) come from the
    # environment; the tools API and the MCP file come from .env alone, as for an operator.
    bot = await BotProcess(process_environment(bot_environment(fake, llm, folder)), folder).start()
    plugin = await asyncio.create_subprocess_exec(
        sys.executable,
        "examples/dice_plugin.py",
        cwd=folder,
        env=process_environment({}),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        await bot.wait_for_line("Otomo is ready")
        await bot.wait_for_line("MCP server 'calendar' connected over stdio with 2 tools")
        async with asyncio.timeout(START_LIMIT):
            # The plugin retries until the bot's API answers; poll its registrations.
            while True:
                if {"roll_dice", "draw_lottery"} <= await registered(port):
                    break
                await asyncio.sleep(0.2)
        sent = await fake.send_user_message(
            GENERAL_CHANNEL_ID, HANA_ID, "何ができる？", mention_bot=True
        )
        reply = await fake.wait_for_message(
            GENERAL_CHANNEL_ID, lambda m: "offered:" in m["content"], after=int(sent["id"])
        )
    finally:
        plugin.terminate()
        plugin_log = (await asyncio.wait_for(plugin.communicate(), 30))[1].decode()
        await bot.stop()

    offered = reply["content"].split()
    assert "roll_dice" in offered and "draw_lottery" in offered
    assert any("calendar" in name and "days_until" in name for name in offered)
    assert "Authorization is missing or wrong" not in plugin_log
