"""The plugin SDK: schemas from type hints, answers in the callback protocol, a runner that
registers while the bot is down, registers again when the bot lost it, and clears on stop."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from pydantic import Field

from bot.agent.tools import ToolRegistry
from bot.extools.api import ToolsAPI
from bot.plugins import Plugin, ToolFailure, llm_tool
from bot.runtime.clock import ManualClock
from bot.storage import Database
from tests.extools.conftest import TOKEN, eventually, make_catalog
from tests.fakes.local_server import free_port


async def roll(
    notation: Annotated[str, Field(description="Dice such as 2d6")], seed: str | None = None
) -> dict[str, Any]:
    """Roll dice."""
    if notation == "boom":
        raise RuntimeError("the table broke")
    if not notation[0].isdigit():
        raise ToolFailure(f"{notation!r} is not dice notation")
    return {"notation": notation, "seed": seed}


def test_the_schema_comes_from_type_hints_and_the_description_from_the_docstring() -> None:
    made = llm_tool(roll, timeout=5, handlers=["chat"])

    assert made.name == "roll" and made.description == "Roll dice."
    assert made.parameters == {
        "type": "object",
        "properties": {
            "notation": {"type": "string", "description": "Dice such as 2d6"},
            "seed": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        },
        "required": ["notation"],
        "additionalProperties": False,
    }
    assert made.registration("http://127.0.0.1:1/tools/roll", "dice")["handlers"] == ["chat"]


@pytest.mark.parametrize(
    ("options", "words"),
    [({"name": "roll dice"}, "must be 1-64"), ({"timeout": 301}, "at most 300")],
)
def test_bad_names_and_timeouts_are_refused_where_the_tool_is_defined(
    options: dict[str, Any], words: str
) -> None:
    with pytest.raises(ValueError, match=words):
        llm_tool(roll, **options)


@pytest.mark.parametrize(
    ("arguments", "answer"),
    [
        ({"notation": "2d6"}, {"output": {"notation": "2d6", "seed": None}, "is_error": False}),
        (
            {"notation": 6},
            {
                "output": None,
                "is_error": True,
                "error": "Arguments for roll do not match its schema (notation: Input should "
                "be a valid string).",
            },
        ),
        (
            {"notation": "d6"},
            {"output": None, "is_error": True, "error": "'d6' is not dice notation"},
        ),
        (
            {"notation": "boom"},
            {"output": None, "is_error": True, "error": "RuntimeError: the table broke"},
        ),
    ],
)
async def test_each_call_is_answered_in_the_callback_protocol(
    arguments: dict[str, Any], answer: dict[str, Any]
) -> None:
    plugin = Plugin("dice", [llm_tool(roll)])
    async with TestClient(TestServer(plugin.app(), host="127.0.0.1")) as client:
        response = await client.post(
            "/tools/roll",
            json={"name": "roll", "arguments": arguments, "call_id": "c1", "raw_arguments": ""},
        )
        assert await response.json() == answer
        assert (await client.get("/tools/roll")).status == 200


@pytest.fixture
def bot_port() -> int:
    """A port where the bot's API will listen (nothing listens yet)."""
    return free_port()


async def test_the_runner_waits_for_the_bot_registers_again_when_lost_and_clears_on_stop(
    database: Database, clock: ManualClock, bot_port: int
) -> None:
    registry = ToolRegistry()
    catalog = make_catalog(database, clock, registry, frozenset())
    plugin = Plugin(
        "dice",
        [llm_tool(roll)],
        bot_url=f"http://127.0.0.1:{bot_port}",
        token=TOKEN,
        watch_every=0.1,
    )
    stop = asyncio.Event()
    runner = asyncio.create_task(plugin.serve(stop))
    api = ToolsAPI(catalog, TOKEN, "127.0.0.1", bot_port)
    try:
        await asyncio.sleep(0.3)  # the bot is down: the plugin keeps retrying
        assert plugin.registrations == 0
        assert await api.start()
        await eventually(lambda: registry.get("roll") is not None, 15)

        await catalog.clear("dice")  # the bot lost the registration
        await eventually(lambda: registry.get("roll") is not None, 15)
        assert plugin.registrations == 2

        stop.set()
        await asyncio.wait_for(runner, 10)
        assert registry.get("roll") is None
        assert await catalog.store.all() == []
    finally:
        stop.set()
        await api.stop()
        await catalog.stop()
        if not runner.done():
            runner.cancel()


async def test_stopping_while_the_bot_is_down_ends_the_runner(bot_port: int) -> None:
    plugin = Plugin("dice", [llm_tool(roll)], bot_url=f"http://127.0.0.1:{bot_port}", token=TOKEN)
    stop = asyncio.Event()
    runner = asyncio.create_task(plugin.serve(stop))
    await asyncio.sleep(0.2)  # it is retrying the registration now

    stop.set()

    await asyncio.wait_for(runner, 10)
    assert plugin.registrations == 0


async def test_a_wrong_token_stops_the_runner_with_a_sentence(
    database: Database, clock: ManualClock, bot_port: int
) -> None:
    catalog = make_catalog(database, clock, ToolRegistry(), frozenset())
    api = ToolsAPI(catalog, TOKEN, "127.0.0.1", bot_port)
    await api.start()
    plugin = Plugin("dice", [llm_tool(roll)], bot_url=f"http://127.0.0.1:{bot_port}", token="nope")
    try:
        with pytest.raises(Exception, match="Authorization is missing or wrong"):
            await asyncio.wait_for(plugin.serve(asyncio.Event()), 10)
    finally:
        await api.stop()
        await catalog.stop()
