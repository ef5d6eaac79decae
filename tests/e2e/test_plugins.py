"""A plugin process built with the SDK, against the real bot process: approval, restarts, health."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import IO, Any

import aiohttp
import pytest

from tests.e2e.harness import bot_environment, custom_ids
from tests.fakes.discord_server import (
    GENERAL_CHANNEL_ID,
    HANA_ID,
    RANDOM_CHANNEL_ID,
    THREAD_ID,
    FakeDiscord,
    Json,
)
from tests.fakes.llm_server import ChatRequest, Reply, ScriptedLLM, text, tool_call
from tests.fakes.local_server import free_port
from tests.fakes.netguard import blocked_lines, child_env

pytestmark = pytest.mark.e2e

PROJECT = Path(__file__).resolve().parents[2]
EXAMPLE = PROJECT / "examples" / "dice_plugin.py"
TOKEN = "e2e-token-0123456789abcdef"
START_LIMIT = 60.0
# The scripted model ends every answer with this, so a test knows the answer is complete.
END = "（おわり）"
# Each question goes to the next channel: a member has one running answer per channel.
CHANNELS = (GENERAL_CHANNEL_ID, RANDOM_CHANNEL_ID, THREAD_ID)


def _environment(extra: dict[str, str]) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG", "TMPDIR"}}
    base.update(extra)
    return child_env(base)


class Processes:
    """The bot and plugin processes of one test, with their logs on disk."""

    def __init__(self, tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM) -> None:
        self.tmp_path = tmp_path
        self.fake = fake
        self.port = free_port()
        self.api = f"http://127.0.0.1:{self.port}"
        self.bot_env = _environment(
            bot_environment(
                fake,
                llm,
                tmp_path,
                TOOLS_API_PORT=self.port,
                TOOLS_API_TOKEN=TOKEN,
                TOOLS_HEALTH_CHECK_SECONDS=3600,
                USER_RATE_LIMIT_PER_MINUTE=60,
            )
        )
        self.plugin_env = _environment({"OTOMO_TOOLS_URL": self.api, "OTOMO_TOOLS_TOKEN": TOKEN})
        self.running: list[tuple[asyncio.subprocess.Process, IO[bytes]]] = []
        self.http = aiohttp.ClientSession()
        self.asked = -1

    async def _spawn(self, log_name: str, *args: str, env: dict[str, str]) -> Any:
        log = (self.tmp_path / log_name).open("ab")
        process = await asyncio.create_subprocess_exec(
            sys.executable, *args, cwd=self.tmp_path, env=env, stdout=log, stderr=log
        )
        self.running.append((process, log))
        return process

    async def start_bot(self) -> Any:
        """`python -m bot run`; returns once its tools API answers."""
        identifies = self._identifies()
        process = await self._spawn("bot.runtime.log", "-m", "bot", "run", env=self.bot_env)
        await self.fake.wait_until(
            lambda: self._identifies() > identifies, START_LIMIT, what="the bot's IDENTIFY"
        )
        await self._wait_for(lambda tools: True, "the tools API")
        return process

    async def start_plugin(self) -> Any:
        """The example plugin; returns once both its tools are registered and available."""
        process = await self._spawn("plugin.log", str(EXAMPLE), env=self.plugin_env)
        await self._wait_for(
            lambda tools: (
                {"roll_dice", "draw_lottery"} <= {t["name"] for t in tools if t["available"]}
            ),
            "the plugin's registrations",
        )
        return process

    def _identifies(self) -> int:
        return sum(1 for op in self.fake.received_ops if op.get("op") == 2)

    async def tools(self) -> list[Json]:
        """`GET /api/tools` as a plugin sees it."""
        async with self.http.get(
            f"{self.api}/api/tools", headers={"Authorization": f"Bearer {TOKEN}"}
        ) as response:
            return list((await response.json())["tools"])

    async def _wait_for(self, done: Any, what: str) -> None:
        async with asyncio.timeout(START_LIMIT):
            while True:
                try:
                    if done(await self.tools()):
                        return
                except aiohttp.ClientError:
                    pass
                await asyncio.sleep(0.1)

    def log(self, name: str) -> str:
        """What a process wrote so far."""
        return (self.tmp_path / name).read_text(errors="replace")

    async def close(self) -> None:
        """Stop whatever still runs."""
        for process, log in self.running:
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
                try:
                    await asyncio.wait_for(process.wait(), 30)
                except TimeoutError:
                    process.kill()
                    await process.wait()
            log.close()
        await self.http.close()


@asynccontextmanager
async def processes(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> AsyncIterator[Processes]:
    """Processes that are stopped at the end of the test whatever happens."""
    started = Processes(tmp_path, fake, llm)
    try:
        yield started
    finally:
        await started.close()


def _dice_model(request: ChatRequest) -> Reply:
    """Calls roll_dice when offered; then answers with what the tool said."""
    last = request.last_message
    if last.get("role") == "tool":
        return text(f"ダイスの結果: {last['content']} {END}")
    if "roll_dice" in request.tool_names:
        return tool_call("roll_dice", {"notation": "2d6", "seed": "fair"})
    return text(f"ダイスは今使えません {END}")


async def _ask(p: Processes, words: str) -> Json:
    p.asked += 1
    channel = CHANNELS[p.asked % len(CHANNELS)]
    return await p.fake.send_user_message(
        channel, HANA_ID, f"<@{p.fake.world.bot.id}> {words}", mention_bot=True
    )


async def _answer(p: Processes, sent: Json, *words: str) -> Json:
    """The bot's whole reply (it streams in by edits), which must hold every word."""
    reply = await p.fake.wait_for_message(
        int(sent["channel_id"]),
        lambda m: END in m["content"],
        after=int(sent["id"]),
        timeout=30,
    )
    assert all(w in reply["content"] for w in words), reply["content"]
    return reply


async def test_a_plugin_tool_survives_bot_restarts_and_goes_offline_with_its_plugin(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.rule = _dice_model
    async with processes(tmp_path, fake, llm) as p:
        await p.start_bot()
        plugin = await p.start_plugin()

        # A mention, the card names the plugin's source, "always allow", the result in the reply.
        sent = await _ask(p, "2d6を振って")
        card = await fake.wait_for_message(
            int(sent["channel_id"]),
            lambda m: any(c.startswith("apv:") for c in custom_ids(m)),
            after=int(sent["id"]),
            timeout=30,
        )
        embed = json.dumps(card["embeds"][0], ensure_ascii=False)
        assert "roll_dice" in embed and "`dice`" in embed
        always = next(c for c in custom_ids(card) if c.endswith(":always"))
        await fake.click_button(int(card["id"]), always, HANA_ID)
        await _answer(p, sent, "ダイスの結果", '"seed": "fair"', '"total"')

        # The bot is killed and started again: the tool is still offered, nobody re-registered.
        bot = p.running[0][0]
        bot.kill()
        await bot.wait()
        await p.start_bot()
        sent = await _ask(p, "もう一回振って")
        await _answer(p, sent, "ダイスの結果", '"seed": "fair"')
        assert p.log("plugin.log").count("Registered roll_dice") == 1

        # The plugin is killed: the model reads a sentence and the tool is no longer offered.
        plugin.kill()
        await plugin.wait()
        sent = await _ask(p, "また振って")
        await _answer(p, sent, "ダイスの結果", "roll_dice is offline")
        (dice,) = [t for t in await p.tools() if t["name"] == "roll_dice"]
        assert dice["available"] is False
        sent = await _ask(p, "振れる？")
        await _answer(p, sent, "ダイスは今使えません")
        assert "roll_dice" not in llm.last_request.tool_names

        # The plugin starts again: registered at start, offered again. It listens on another
        # port, so it is another provider: "always allow" was for the old one, and a card asks.
        await p.start_plugin()
        sent = await _ask(p, "今度こそ振って")
        card = await fake.wait_for_message(
            int(sent["channel_id"]),
            lambda m: any(c.startswith("apv:") for c in custom_ids(m)),
            after=int(sent["id"]),
            timeout=30,
        )
        approve = next(c for c in custom_ids(card) if c.endswith(":approve"))
        await fake.click_button(int(card["id"]), approve, HANA_ID)
        reply = await _answer(p, sent, "ダイスの結果", '"seed": "fair"')
        assert "offline" not in reply["content"]

    bot_log = p.log("bot.runtime.log")
    assert blocked_lines(bot_log) == [] and blocked_lines(p.log("plugin.log")) == []
    assert TOKEN not in bot_log and TOKEN not in p.log("plugin.log")
