"""Tools from outside in the running bot: an MCP server's tool behind a card, /tools list."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.agent.tools.registry import PROVIDER_NAME
from bot.extools.registration import Registration
from tests.e2e.harness import RunningBot, custom_ids, running_bot
from tests.fakes.discord_server import ADMIN_ID, GENERAL_CHANNEL_ID, GUILD_ID, HANA_ID, FakeDiscord
from tests.fakes.llm_server import ChatRequest, Reply, ScriptedLLM, text, tool_call
from tests.fakes.plugin_server import FakePlugin

pytestmark = pytest.mark.e2e

MCP_SERVER = Path(__file__).resolve().parents[1] / "fakes" / "mcp_dice_server.py"


def _echo_model(tool: str, arguments: dict[str, object]) -> Callable[[ChatRequest], Reply]:
    def answer(request: ChatRequest) -> Reply:
        last = request.last_message
        if last.get("role") == "tool":
            return text(f"結果: {last['content']}")
        if tool in request.tool_names:
            return tool_call(tool, arguments)
        return text("そのツールはありません")

    return answer


async def _card(otomo: RunningBot, sent_id: int) -> dict[str, Any]:
    return await otomo.fake.wait_for_message(
        GENERAL_CHANNEL_ID,
        lambda m: any(c.startswith("apv:") for c in custom_ids(m)),
        after=sent_id,
        timeout=15,
    )


async def test_an_mcp_servers_tool_is_called_through_an_approval_card(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    servers = tmp_path / "mcp.json"
    servers.write_text(
        json.dumps({"mcpServers": {"dice": {"command": sys.executable, "args": [str(MCP_SERVER)]}}})
    )
    # The model sees the name every provider accepts; members see the registered one.
    llm.rule = _echo_model("mcp__dice__roll", {"sides": 20, "times": 2})
    async with running_bot(tmp_path, fake=fake, llm=llm, MCP_SERVERS_FILE=servers) as otomo:
        mcp = otomo.app.core.extools.mcp
        assert mcp is not None
        await asyncio.wait_for(mcp.connected.wait(), 30)

        sent = await otomo.mention("20面ダイスを2回振って")
        card = await _card(otomo, int(sent["id"]))
        embed = json.dumps(card["embeds"][0], ensure_ascii=False)
        assert "mcp.dice.roll" in embed and "`mcp:dice`" in embed
        approve = next(c for c in custom_ids(card) if c.endswith(":approve"))
        await fake.click_button(int(card["id"]), approve, HANA_ID)
        reply = await fake.wait_for_message(
            GENERAL_CHANNEL_ID, lambda m: '"total": 40' in m["content"], after=int(sent["id"])
        )
        await otomo.idle()

    assert reply["content"].startswith("結果:")
    assert all(PROVIDER_NAME.fullmatch(name) for r in llm.requests for name in r.tool_names)


async def test_admins_list_external_tools_with_health_and_can_disable_one(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.rule = _echo_model("roll_dice", {"notation": "2d6"})
    async with (
        FakePlugin() as plugin,
        running_bot(tmp_path, fake=fake, llm=llm, DEV_GUILD_ID=GUILD_ID) as otomo,
    ):
        catalog = otomo.app.core.extools.catalog
        await catalog.register(
            Registration(
                name="roll_dice",
                description="Roll dice.",
                parameters={"type": "object", "properties": {}},
                callback_url=plugin.callback_url,
                source="dice",
                handlers=("general", "chat"),
            )
        )

        refused = await fake.invoke_slash("tools list", user_id=HANA_ID)
        answer = (await refused.wait_response())["data"]
        assert "管理者（サーバー管理権限）だけ" in answer["content"] and answer["flags"] & 64

        listed = await fake.invoke_slash("tools list", user_id=ADMIN_ID)
        answer = (await listed.wait_response())["data"]
        shown = answer["embeds"][0]["description"]
        assert "`roll_dice`" in shown and "source `dice`" in shown
        assert "general, chat; all servers" in shown and "✅ 利用可" in shown
        menu = answer["components"][0]["components"][0]
        message_id = int(listed.original_message()["id"])  # type: ignore[index]
        chosen = await fake.choose_select(message_id, menu["custom_id"], ["roll_dice"], ADMIN_ID)
        update = (await chosen.wait_response())["data"]
        assert "⛔ 無効（管理者が停止）" in update["embeds"][0]["description"]

        await otomo.ask("サイコロ振って")
        assert "roll_dice" not in llm.last_request.tool_names
        assert plugin.calls == []
