"""The callback protocol, health and restarts: every failure is a sentence for the model."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from aiohttp import web

from bot.agent.tools import ToolContext, ToolRegistry, execute, tool
from bot.extools.registration import Registration
from bot.runtime.clock import ManualClock
from bot.storage import Database
from tests.extools.conftest import Rig, make_catalog
from tests.fakes.plugin_server import FakePlugin


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


async def test_an_answer_that_is_not_utf8_is_an_error_for_the_model_logged_once(
    rig: Rig, caplog: pytest.LogCaptureFixture
) -> None:
    async def garbled(_: dict[str, Any]) -> web.StreamResponse:
        return web.Response(
            body=b'{"output": "\xff\xfe\xfd", "is_error": false}',
            content_type="application/json",
        )

    rig.plugin.answer = garbled
    await rig.register()

    with caplog.at_level(logging.WARNING):
        outcome = await _call(rig)

    assert outcome.is_error
    assert "roll_dice" in outcome.output and "UTF-8" in outcome.output
    logged = [r for r in caplog.records if "roll_dice" in r.getMessage()]
    assert len(logged) == 1 and "UTF-8" in logged[0].getMessage()
    assert logged[0].levelno == logging.WARNING


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


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
async def test_a_redirect_is_an_error_naming_its_status_and_is_never_followed(
    rig: Rig, status: int
) -> None:
    async with FakePlugin() as elsewhere:

        async def redirect(_: dict[str, Any]) -> web.StreamResponse:
            return web.Response(status=status, headers={"Location": elsewhere.callback_url})

        rig.plugin.answer = redirect
        await rig.register()

        outcome = await _call(rig)

        assert outcome.is_error
        assert f"redirect (HTTP {status})" in outcome.output
        assert (elsewhere.calls, elsewhere.probes) == ([], 0)


async def test_a_health_probe_answered_with_a_redirect_marks_the_tool_unavailable(
    rig: Rig,
) -> None:
    async with FakePlugin() as elsewhere:
        rig.plugin.probe_answer = lambda: web.Response(
            status=302, headers={"Location": elsewhere.callback_url}
        )
        await rig.register()

        await rig.catalog.check_health()

        assert elsewhere.probes == 0
    assert rig.registry.get("roll_dice") is None
    (status,) = await rig.catalog.statuses()
    assert status.detail is not None and "redirect (HTTP 302)" in status.detail


async def test_an_answer_over_the_byte_cap_is_not_read_and_the_model_is_told(
    rig: Rig,
) -> None:
    huge = b'{"output": "' + b"x" * 20_000_000 + b'"}'

    async def flood(_: dict[str, Any]) -> web.StreamResponse:
        return web.Response(body=huge, content_type="application/json")

    rig.plugin.answer = flood
    await rig.register()

    outcome = await _call(rig)

    assert outcome.is_error
    assert "more than 1,000,000 bytes" in outcome.output
    assert len(outcome.to_content()) < 1000


async def test_a_streamed_answer_without_a_length_is_cut_off_at_the_byte_cap(
    rig: Rig, database: Database, clock: ManualClock
) -> None:
    sent: list[int] = []

    async def endless() -> AsyncIterator[bytes]:
        yield b"["
        for _ in range(10_000):  # 20 MB unless the bot stops reading
            sent.append(1)
            yield b"1," * 1000

    async def chunked(_: dict[str, Any]) -> web.StreamResponse:
        return web.Response(body=endless(), content_type="application/json")

    registry = ToolRegistry()
    catalog = make_catalog(database, clock, registry, frozenset(), max_answer_bytes=50_000)
    rig.plugin.answer = chunked
    await rig.register()
    await catalog.refresh()
    found = registry.get("roll_dice")
    assert found is not None

    outcome = await execute(found, rig.context(), {"notation": "2d6"})
    await catalog.stop()

    assert outcome.is_error and "more than 50,000 bytes" in outcome.output
    assert len(sent) < 10_000


async def test_a_long_answer_is_cut_for_the_model_with_a_note(
    rig: Rig, database: Database, clock: ManualClock
) -> None:
    async def long(_: dict[str, Any]) -> web.StreamResponse:
        return web.json_response({"output": "あ" * 50_000})

    registry = ToolRegistry()
    catalog = make_catalog(database, clock, registry, frozenset(), max_result_chars=1000)
    rig.plugin.answer = long
    await rig.register()
    await catalog.refresh()
    found = registry.get("roll_dice")
    assert found is not None

    outcome = await execute(found, rig.context(), {"notation": "2d6"})
    await catalog.stop()

    assert not outcome.is_error
    assert outcome.output.startswith("あ" * 1000 + "\n[cut by Otomo")
    assert "50,000 characters; only the first 1,000 are kept" in outcome.output


async def test_arguments_that_do_not_match_the_schema_never_reach_the_callback(
    rig: Rig,
) -> None:
    await rig.register(
        parameters={
            "type": "object",
            "properties": {"notation": {"type": "string"}},
            "required": ["notation"],
            "additionalProperties": False,
        }
    )

    wrong_type = await _call(rig, {"notation": 6})
    missing = await _call(rig, {"sides": 6})

    assert rig.plugin.calls == []
    assert wrong_type.is_error and "at arguments.notation, 6 is not of type 'string'" in (
        wrong_type.output
    )
    assert missing.is_error and "'notation' is a required property" in missing.output


async def test_a_registration_restored_under_a_built_in_name_never_replaces_it(
    rig: Rig, database: Database, clock: ManualClock
) -> None:
    # Registered while the bot had no tool of that name (web search off without its key).
    await rig.register(name="web_search", description="A plugin's search.")

    @tool(requires_approval=False)
    async def web_search(ctx: ToolContext, query: str) -> str:
        """The bot's own web search."""
        return query

    restarted = ToolRegistry([web_search])
    catalog = make_catalog(database, clock, restarted, frozenset())
    await catalog.restore()

    found = restarted.get("web_search")
    assert found is not None and found.description == "The bot's own web search."
    (status,) = await catalog.statuses()
    assert not status.available and "a built-in tool has this name" in (status.detail or "")


async def test_a_restored_row_whose_model_name_another_tool_has_is_not_offered(
    rig: Rig, database: Database, clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    await rig.register(name="dice.roll")
    # Stored by a process that did not see the first (the API refuses it with a 409).
    await rig.catalog.store.save(
        Registration(
            name="dice__roll",
            description="Another roll.",
            parameters={"type": "object", "properties": {}},
            callback_url=rig.plugin.callback_url,
            source="other",
        )
    )
    restarted = ToolRegistry()
    catalog = make_catalog(database, clock, restarted, frozenset())

    await catalog.restore()

    assert restarted.names() == ["dice.roll"]
    statuses = {s.name: s for s in await catalog.statuses()}
    assert not statuses["dice__roll"].available
    assert "already the name of 'dice.roll'" in (statuses["dice__roll"].detail or "")
    assert any("dice__roll from other is not offered" in r.getMessage() for r in caplog.records)


async def test_each_provider_is_its_source_callback_and_definition(rig: Rig) -> None:
    await rig.register()
    first = rig.registry.get("roll_dice")
    await rig.register()
    same = rig.registry.get("roll_dice")
    await rig.register(description="Roll dice, now with a twist.")
    redefined = rig.registry.get("roll_dice")
    await rig.register(source="other")
    elsewhere = rig.registry.get("roll_dice")

    assert first is not None and same is not None and redefined is not None
    assert elsewhere is not None
    assert first.provider is not None and first.provider == same.provider
    assert len({first.provider, redefined.provider, elsewhere.provider}) == 3
