"""A request laid out for the providers' prefix caches, and the cached tokens they report."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import select

from bot.agent import events as ev
from bot.agent.llm.provider import CACHE_MARKER, cached_tokens, with_cache_marker
from bot.agent.llm.usage import usage_by_day
from bot.agent.runs import Prompt, laid_out
from bot.storage.agent import LLMCall
from tests.agent.conftest import Rig, collect
from tests.fakes.llm_server import text, tool_call


def _before_context(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages before the context (the last system message)."""
    last = max(i for i, m in enumerate(messages) if m["role"] == "system")
    return messages[:last]


async def test_the_context_follows_the_members_message_and_the_rest_repeats_a_minute_later(
    rig: Rig,
) -> None:
    rig.llm.queue(text("こんにちは！"), text("元気だよ"))

    await collect(rig.agent.run(rig.request(), "こんにちは"))
    rig.clock.advance(timedelta(minutes=3))
    await collect(rig.agent.run(rig.request(), "元気？"))

    first, second = (r.messages for r in rig.llm.requests)
    assert first[0] == {"role": "system", "content": "You are a test assistant."}
    assert first[1:] == [
        {"role": "user", "content": "user100: こんにちは"},
        {"role": "system", "content": "Now 2026-11-29 20:00."},
    ]
    # Everything before the first request's context opens the second request unchanged.
    assert second[: len(first) - 1] == first[:-1]
    assert second[len(first) - 1 :] == [
        {"role": "assistant", "content": "こんにちは！"},
        {"role": "user", "content": "user100: 元気？"},
        {"role": "system", "content": "Now 2026-11-29 20:03."},
    ]


async def test_a_turns_later_rounds_extend_its_first_request(rig: Rig) -> None:
    rig.llm.queue(tool_call("count_notes", {}), text("0件です"))

    await collect(rig.agent.run(rig.request(), "メモ何件？"))

    first, second = (r.messages for r in rig.llm.requests)
    assert second[: len(first)] == first
    assert [m["role"] for m in second[len(first) :]] == ["assistant", "tool"]


def test_without_a_member_message_the_context_closes_the_request() -> None:
    messages = laid_out(Prompt("rules", "now"), [{"role": "assistant", "content": "hi"}])

    assert [m["content"] for m in messages] == ["rules", "hi", "now"]


def test_a_prompt_without_context_is_one_system_message() -> None:
    user = {"role": "user", "content": "hi"}

    assert laid_out(Prompt("rules"), [user]) == [{"role": "system", "content": "rules"}, user]


def test_anthropic_models_get_a_cache_marker_on_the_stable_part_only() -> None:
    messages = laid_out(Prompt("rules", "now"), [{"role": "user", "content": "hi"}])

    marked = with_cache_marker(messages, "anthropic/claude-3-5-haiku-20241022")
    assert marked[0] == {
        "role": "system",
        "content": [{"type": "text", "text": "rules", "cache_control": CACHE_MARKER}],
    }
    assert marked[1:] == messages[1:]
    # Providers that cache every prefix on their own get the messages as they are.
    assert with_cache_marker(messages, "openai/gpt-4o-mini") == messages
    assert with_cache_marker(messages, "ollama/qwen2.5") == messages


def test_cached_tokens_are_read_from_each_providers_usage() -> None:
    assert cached_tokens({"prompt_tokens_details": {"cached_tokens": 768}}) == 768
    assert cached_tokens({"cache_read_input_tokens": 512, "prompt_tokens_details": None}) == 512
    assert cached_tokens({"prompt_tokens": 900}) == 0
    assert cached_tokens(None) == 0


async def _calls(rig: Rig) -> list[LLMCall]:
    async with rig.database.sessions() as session:
        return list((await session.scalars(select(LLMCall).order_by(LLMCall.id))).all())


async def test_cached_prompt_tokens_are_logged_summed_per_run_and_shown_in_the_usage(
    rig: Rig,
) -> None:
    rig.llm.prefix_cache = True
    rig.llm.queue(text("こんにちは！"), text("元気だよ"))

    await collect(rig.agent.run(rig.request(), "こんにちは"))
    rig.clock.advance(timedelta(minutes=3))
    events = await collect(rig.agent.run(rig.request(), "元気？"))

    first, second = await _calls(rig)
    reported = rig.llm.requests[1].cached_tokens
    assert first.tokens_cached is None  # nothing was cached before the first request
    assert second.tokens_in is not None and 0 < reported < second.tokens_in
    assert second.tokens_cached == reported
    done = events[-1]
    assert isinstance(done, ev.Done) and done.usage.cached_tokens == reported
    report = await usage_by_day(rig.database.sessions, rig.clock.now(), 1, rig.settings.timezone)
    assert report.total.tokens_cached == reported
    header, _, total = report.table().splitlines()
    assert header.split()[5] == "cached" and total.split()[4] == str(reported)
