"""The callback protocol, health and restarts: every failure is a sentence for the model."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from aiohttp import web

from bot.agent.tools import ToolRegistry, execute
from bot.clock import ManualClock
from bot.storage import Database
from tests.extools.conftest import Rig, make_catalog


async def _call(rig: Rig, arguments: dict[str, Any] | None = None) -> Any:
    found = rig.registry.get("roll_dice")
    assert found is not None
    return await execute(found, rig.context(), arguments or {"notation": "2d6"})


async def test_the_bot_posts_name_arguments_call_id_and_raw_arguments(rig: Rig) -> None:
    await rig.register()

    outcome = await _call(rig)

    assert rig.plugin.calls == [
        {
            "name": "roll_dice",
            "arguments": {"notation": "2d6"},
            "call_id": "call_1",
            "raw_arguments": '{"notation": "2d6"}',
        }
    ]
    assert (outcome.output, outcome.is_error) == ({"echo": {"notation": "2d6"}}, False)


# Factories, not responses: a response can be sent once, and each case runs on both engines.
@pytest.mark.parametrize(
    ("answer", "output", "is_error", "words"),
    [
        (lambda: web.json_response({"total": 7}), {"total": 7}, False, None),
        (lambda: web.json_response({"output": [1, 2], "is_error": False}), [1, 2], False, None),
        (
            lambda: web.json_response({"output": None, "is_error": True, "error": "no such die"}),
            None,
            True,
            "reported an error: no such die",
        ),
        (lambda: web.Response(text="<html>oops</html>"), None, True, "not JSON"),
        (lambda: web.Response(status=500, text="Internal"), None, True, "HTTP 500"),
        (lambda: web.Response(text=""), None, True, "empty body"),
    ],
)
async def test_answers_become_results_or_sentences(
    rig: Rig,
    answer: Callable[[], web.Response],
    output: Any,
    is_error: bool,
    words: str | None,
) -> None:
    async def respond(_: dict[str, Any]) -> web.StreamResponse:
        return answer()

    rig.plugin.answer = respond
    await rig.register()

    outcome = await _call(rig)

    assert outcome.is_error is is_error
    if words is None:
        assert outcome.output == output
    else:
        assert words in outcome.output and "roll_dice" in outcome.output


async def test_a_callback_slower_than_its_timeout_becomes_a_sentence(rig: Rig) -> None:
    async def slow(_: dict[str, Any]) -> web.StreamResponse:
        await rig.plugin.hang()
        return web.json_response({})

    rig.plugin.answer = slow
    await rig.register(timeout_seconds=0.2)

    outcome = await _call(rig)

    assert outcome.is_error
    assert "did not answer within 0.2 seconds" in outcome.output
    assert rig.registry.get("roll_dice") is not None  # slow is not dead


async def test_a_dead_callback_is_a_sentence_and_the_tool_is_no_longer_offered(
    rig: Rig,
) -> None:
    await rig.register()
    await rig.plugin.close()

    outcome = await _call(rig)

    assert outcome.is_error
    assert "roll_dice is offline" in outcome.output
    assert rig.registry.select([], None, "general") == []
    (status,) = await rig.catalog.statuses()
    assert (status.available, status.disabled) == (False, False)
    assert status.detail is not None and "offline" in status.detail


async def test_a_health_check_marks_a_silent_plugin_and_brings_it_back(rig: Rig) -> None:
    await rig.register()
    port = rig.plugin._port
    await rig.plugin.close()

    await rig.catalog.check_health()
    assert rig.registry.get("roll_dice") is None

    rig.plugin._port = port
    runner = web.AppRunner(rig.plugin._app())
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        await rig.catalog.check_health()
    finally:
        await runner.cleanup()

    assert rig.registry.get("roll_dice") is not None
    (status,) = await rig.catalog.statuses()
    assert status.available and status.detail is None


async def test_registrations_are_restored_by_a_new_process_on_the_same_database(
    rig: Rig, database: Database, clock: ManualClock
) -> None:
    await rig.register(handlers=["chat"])
    restarted = ToolRegistry()
    catalog = make_catalog(database, clock, restarted, frozenset())

    await catalog.refresh()

    found = restarted.get("roll_dice")
    assert found is not None and found.source == "dice" and found.handlers == {"chat"}
    assert found.requires_approval


async def test_a_trusted_source_with_its_own_token_runs_without_approval_others_need_it(
    rig: Rig,
) -> None:
    token = await rig.credentials.create("trusted_source")
    await rig.register(token, name="safe", source="trusted_source")
    await rig.register(name="unknown", source="someone")

    assert rig.registry.get("safe").requires_approval is False  # type: ignore[union-attr]
    assert rig.registry.get("unknown").requires_approval is True  # type: ignore[union-attr]


async def test_an_admin_disabled_tool_is_not_offered_even_after_re_registration(
    rig: Rig,
) -> None:
    await rig.register()
    await rig.catalog.set_disabled("roll_dice", True)
    await rig.register()

    assert rig.registry.get("roll_dice") is None
    await rig.catalog.set_disabled("roll_dice", False)
    assert rig.registry.get("roll_dice") is not None


async def test_changes_made_by_another_process_appear_after_a_refresh(
    rig: Rig, database: Database, clock: ManualClock
) -> None:
    other_registry = ToolRegistry()
    other = make_catalog(database, clock, other_registry, frozenset())
    await other.refresh()

    await rig.register()
    assert other_registry.get("roll_dice") is None
    await other.refresh()
    assert other_registry.get("roll_dice") is not None
