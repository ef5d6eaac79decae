"""The scripted LLM server speaks OpenAI's wire format well enough for the real litellm."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import AsyncIterator
from typing import Any

# Without this, importing litellm tries to download a price list and stalls offline.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import aiohttp
import litellm
import pytest

from tests.fakes.llm_server import (
    ScriptedLLM,
    auth_error,
    context_length_exceeded,
    delay,
    error,
    hang,
    rate_limited,
    server_error,
    text,
    tool_call,
    tool_calls,
)

# litellm prints a red "Provider List" banner when stream_chunk_builder cannot price a model.
litellm.suppress_debug_info = True
# litellm's first call builds pydantic schemas for TypedDicts with ReadOnly items; pydantic warns.
pytestmark = pytest.mark.filterwarnings("ignore:.*using the `ReadOnly` qualifier:UserWarning")

USER = [{"role": "user", "content": "明日の東京の天気は？"}]
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Forecast for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


@pytest.fixture
async def llm() -> AsyncIterator[ScriptedLLM]:
    """A scripted server for one test."""
    async with ScriptedLLM() as server:
        yield server


async def complete(llm: ScriptedLLM, **kwargs: Any) -> Any:
    """Call the real litellm against the server without retries."""
    kwargs.setdefault("messages", USER)
    kwargs.setdefault("num_retries", 0)
    return await litellm.acompletion(**llm.completion_kwargs(), **kwargs)


async def stream_chunks(llm: ScriptedLLM, **kwargs: Any) -> list[Any]:
    """Stream a completion and return every chunk litellm yields."""
    response = await complete(llm, stream=True, **kwargs)
    return [chunk async for chunk in response]


def accumulate_tool_calls(chunks: list[Any]) -> list[dict[str, str]]:
    """Rebuild tool calls from streamed deltas, the way the product's agent loop should."""
    calls: dict[int, dict[str, str]] = {}
    for chunk in chunks:
        if not chunk.choices:  # the usage-only chunk has no choices
            continue
        for delta in chunk.choices[0].delta.tool_calls or []:
            # Only the first delta of a call has id and name; later ones have just an argument
            # fragment (litellm fills type="function" and id=None on those).
            call = calls.setdefault(delta.index, {"id": "", "name": "", "arguments": ""})
            call["id"] = delta.id or call["id"]
            call["name"] = delta.function.name or call["name"]
            call["arguments"] += delta.function.arguments or ""
    return [calls[i] for i in sorted(calls)]


def contents(chunks: list[Any]) -> list[str]:
    """Return the non-empty text deltas."""
    return [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]


async def test_streamed_text_arrives_in_several_chunks_that_reassemble(llm: ScriptedLLM) -> None:
    llm.queue(text("こんにちは、今日は晴れです。"))

    chunks = await stream_chunks(llm)

    pieces = contents(chunks)
    assert len(pieces) >= 3
    assert "".join(pieces) == "こんにちは、今日は晴れです。"
    assert chunks[-1].choices[0].finish_reason == "stop"


async def test_short_text_is_still_split(llm: ScriptedLLM) -> None:
    llm.queue(text("はい"))

    assert contents(await stream_chunks(llm)) == ["は", "い"]


async def test_non_streamed_text_has_message_and_deterministic_usage(llm: ScriptedLLM) -> None:
    llm.queue(text("晴れです"))

    response = await complete(llm)

    assert response.choices[0].message.content == "晴れです"
    assert response.choices[0].finish_reason == "stop"
    assert response.usage.completion_tokens == 1  # 4 characters / 4
    assert response.usage.total_tokens == response.usage.prompt_tokens + 1


async def test_streamed_tool_call_arrives_as_fragments_that_accumulate(llm: ScriptedLLM) -> None:
    llm.queue(tool_call("get_weather", {"city": "東京"}, id="call_w"))

    chunks = await stream_chunks(llm, tools=[WEATHER_TOOL])

    deltas = [d for c in chunks if c.choices for d in c.choices[0].delta.tool_calls or []]
    first, *fragments = deltas
    assert (first.id, first.function.name, first.function.arguments) == (
        "call_w",
        "get_weather",
        "",
    )
    assert len(fragments) >= 3
    assert all(d.id is None and d.function.name is None for d in fragments)
    assert chunks[-1].choices[0].finish_reason == "tool_calls"
    expected = {"id": "call_w", "name": "get_weather", "arguments": '{"city": "東京"}'}
    assert accumulate_tool_calls(chunks) == [expected]
    # litellm's own builder agrees with the hand-written accumulation.
    built = litellm.stream_chunk_builder(chunks).choices[0].message.tool_calls
    assert [(c.id, c.function.name, c.function.arguments) for c in built] == [
        ("call_w", "get_weather", '{"city": "東京"}')
    ]


async def test_two_tool_calls_in_one_turn_follow_leading_text(llm: ScriptedLLM) -> None:
    turn = tool_calls(
        [tool_call("get_weather", {"city": "東京"}), tool_call("get_weather", {"city": "大阪"})],
        text="調べますね。",
    )
    llm.queue(turn, turn)

    chunks = await stream_chunks(llm, tools=[WEATHER_TOOL])
    response = await complete(llm, tools=[WEATHER_TOOL])

    assert "".join(contents(chunks)) == "調べますね。"
    streamed = accumulate_tool_calls(chunks)
    assert [c["arguments"] for c in streamed] == ['{"city": "東京"}', '{"city": "大阪"}']
    assert [c["id"] for c in streamed] == ["call_1_0", "call_1_1"]  # generated when not given
    message = response.choices[0].message
    assert message.content == "調べますね。"
    assert [c.function.arguments for c in message.tool_calls] == [
        '{"city": "東京"}',
        '{"city": "大阪"}',
    ]
    assert response.choices[0].finish_reason == "tool_calls"


async def test_raw_arguments_are_sent_verbatim_even_when_not_json(llm: ScriptedLLM) -> None:
    llm.queue(tool_call("set_reminder", '{"when": "tomorrow'))
    llm.queue(tool_call("set_reminder", '{"when": "tomorrow'))

    streamed = accumulate_tool_calls(await stream_chunks(llm))
    response = await complete(llm)

    assert streamed[0]["arguments"] == '{"when": "tomorrow'
    assert response.choices[0].message.tool_calls[0].function.arguments == '{"when": "tomorrow'


async def test_usage_is_streamed_only_when_requested(llm: ScriptedLLM) -> None:
    llm.queue(text("晴れです"), text("晴れです"))

    with_usage = await stream_chunks(llm, stream_options={"include_usage": True})
    without = await stream_chunks(llm)

    # The usage chunk comes last, with no choices at all.
    assert with_usage[-1].choices == []
    assert with_usage[-1].usage.completion_tokens == 1
    # litellm adds include_usage only for api.openai.com, not for a custom api_base.
    assert llm.requests[1].body.get("stream_options") is None
    assert all(getattr(c, "usage", None) is None for c in without)


async def test_a_prefix_cache_reports_the_repeated_start_as_cached_tokens(
    llm: ScriptedLLM,
) -> None:
    llm.prefix_cache = True
    llm.queue(text("晴れです"), text("雨です"), text("曇りです"))
    rules = {"role": "system", "content": "あなたはお天気キャスターです。" * 20}

    first = await complete(llm, messages=[rules, *USER])
    again = await complete(llm, messages=[rules, *USER, {"role": "user", "content": "明後日は？"}])
    streamed = await stream_chunks(
        llm,
        messages=[rules, {"role": "user", "content": "週末は？"}],
        stream_options={"include_usage": True},
    )

    assert llm.requests[0].cached_tokens == 0
    assert not getattr(first.usage.prompt_tokens_details, "cached_tokens", None)
    # Everything the first request said is the second's start: all of it is cached.
    assert again.usage.prompt_tokens_details.cached_tokens == llm.requests[1].cached_tokens
    assert llm.requests[1].cached_tokens >= first.usage.prompt_tokens - 1
    # A streamed answer reports it in its usage chunk; only the system message was repeated.
    usage = streamed[-1].usage
    assert 0 < usage.prompt_tokens_details.cached_tokens < usage.prompt_tokens


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize(
    ("reply", "exception"),
    [
        (auth_error(), litellm.AuthenticationError),
        (rate_limited(retry_after=7), litellm.RateLimitError),
        (context_length_exceeded(), litellm.ContextWindowExceededError),
        (error(400, "Invalid 'messages[0].role'."), litellm.BadRequestError),
        (server_error(), litellm.InternalServerError),
    ],
    ids=["401", "429", "context", "400", "500"],
)
async def test_error_replies_become_litellm_exceptions(
    llm: ScriptedLLM, reply: Any, exception: type[Exception], stream: bool
) -> None:
    llm.queue(reply)

    with pytest.raises(exception) as caught:
        response = await complete(llm, stream=stream)
        if stream:
            [chunk async for chunk in response]

    assert caught.value.status_code == reply.error.status
    assert reply.error.message in str(caught.value)
    assert llm.request_count == 1  # num_retries=0: no retry


async def test_context_window_error_is_also_a_bad_request(llm: ScriptedLLM) -> None:
    llm.queue(context_length_exceeded())

    with pytest.raises(litellm.BadRequestError):
        await complete(llm)


async def test_rate_limit_exposes_retry_after(llm: ScriptedLLM) -> None:
    llm.queue(rate_limited(retry_after=7))

    with pytest.raises(litellm.RateLimitError) as caught:
        await complete(llm)

    assert caught.value.response.headers["retry-after"] == "7"


async def test_by_default_the_openai_sdk_retries_429_twice_honouring_retry_after(
    llm: ScriptedLLM,
) -> None:
    llm.queue(*[rate_limited(retry_after=0.05)] * 3)

    started = time.monotonic()
    with pytest.raises(litellm.RateLimitError):
        await litellm.acompletion(**llm.completion_kwargs(), messages=USER)

    assert llm.request_count == 3
    assert time.monotonic() - started >= 0.1


async def test_by_default_401_is_not_retried(llm: ScriptedLLM) -> None:
    llm.queue(auth_error())

    with pytest.raises(litellm.AuthenticationError):
        await litellm.acompletion(**llm.completion_kwargs(), messages=USER)

    assert llm.request_count == 1


async def test_max_retries_zero_also_disables_retries(llm: ScriptedLLM) -> None:
    llm.queue(server_error())

    with pytest.raises(litellm.InternalServerError):
        await litellm.acompletion(**llm.completion_kwargs(), messages=USER, max_retries=0)

    assert llm.request_count == 1


async def test_recorded_request_holds_what_litellm_sent(llm: ScriptedLLM) -> None:
    llm.queue(text("はい"))

    await complete(llm, tools=[WEATHER_TOOL], tool_choice="auto", stream=True)

    request = llm.last_request
    assert request.number == 1
    assert request.path == "/v1/chat/completions"
    assert request.model == "test-model"  # litellm strips the "openai/" prefix
    assert request.messages == USER
    assert request.tools == [WEATHER_TOOL]
    assert request.tool_names == ["get_weather"]
    assert request.tool_choice == "auto"
    assert request.stream
    assert request.headers["authorization"] == "Bearer test"


async def test_tool_results_are_recorded_in_the_next_request(llm: ScriptedLLM) -> None:
    llm.queue(text("晴れです"))
    call = {
        "id": "call_w",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "東京"}'},
    }
    messages = [
        *USER,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_w", "content": "晴れ"},
    ]

    await complete(llm, messages=messages, tools=[WEATHER_TOOL])

    [result] = llm.last_request.messages_with_role("tool")
    assert result == {"role": "tool", "tool_call_id": "call_w", "content": "晴れ"}


async def test_unscripted_request_gets_a_loud_500_and_is_recorded() -> None:
    async with ScriptedLLM(strict=False) as llm:
        with pytest.raises(
            litellm.InternalServerError, match="no scripted response for request #1"
        ):
            await complete(llm)

    assert llm.failures == ["no scripted response for request #1"]


async def test_strict_server_fails_the_test_even_if_the_500_was_swallowed() -> None:
    with pytest.raises(AssertionError, match="no scripted response for request #1"):
        async with ScriptedLLM() as llm:
            # As product code that shows the user a polite error would.
            with contextlib.suppress(litellm.InternalServerError):
                await complete(llm)


async def test_a_broken_rule_is_reported() -> None:
    async with ScriptedLLM(strict=False) as llm:
        llm.rule = lambda request: request.messages[5]  # type: ignore[return-value]
        with pytest.raises(litellm.InternalServerError, match="rule raised IndexError"):
            await complete(llm)


async def test_queue_is_fifo_then_the_rule_answers(llm: ScriptedLLM) -> None:
    llm.queue(text("一"), text("二"))
    llm.rule = lambda request: text(f"rule:{request.number}")

    answers = [(await complete(llm)).choices[0].message.content for _ in range(3)]

    assert answers == ["一", "二", "rule:3"]
    assert llm.pending == 0


async def test_rule_can_branch_on_tool_results(llm: ScriptedLLM) -> None:
    def model(request: Any) -> Any:
        if request.last_message.get("role") == "tool":
            return text(f"結果: {request.last_message['content']}")
        return tool_call("get_weather", {"city": "東京"})

    llm.rule = model

    first = await complete(llm, tools=[WEATHER_TOOL])
    call = first.choices[0].message.tool_calls[0]
    messages = [
        *USER,
        first.choices[0].message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": "晴れ"},
    ]
    second = await complete(llm, messages=messages, tools=[WEATHER_TOOL])

    assert second.choices[0].message.content == "結果: 晴れ"


async def test_delay_holds_back_the_first_byte(llm: ScriptedLLM) -> None:
    llm.queue(delay(0.2, text("はい")))

    started = time.monotonic()
    await complete(llm)

    assert time.monotonic() - started >= 0.2


async def test_chunk_delay_makes_streaming_observable(llm: ScriptedLLM) -> None:
    llm.queue(text("あいうえおかきくけこ", chunk_delay=0.05))

    response = await complete(llm, stream=True)
    arrivals = [time.monotonic() async for chunk in response if chunk.choices[0].delta.content]

    assert len(arrivals) >= 3
    assert arrivals[-1] - arrivals[0] >= 0.05 * (len(arrivals) - 1) * 0.8


async def test_hang_ends_in_a_litellm_timeout(llm: ScriptedLLM) -> None:
    llm.queue(hang())

    with pytest.raises(litellm.Timeout):
        await complete(llm, timeout=0.2)


async def test_hang_mid_stream_times_out_after_the_first_chunks(llm: ScriptedLLM) -> None:
    llm.queue(hang(text("あいうえおかきくけこ"), after_chunks=2))
    received: list[str] = []

    with pytest.raises(litellm.Timeout):
        response = await complete(llm, stream=True, timeout=0.2)
        async for chunk in response:
            received.append(chunk.choices[0].delta.content)

    assert "".join(received) == "あいう"  # role chunk, then one text chunk, then silence


async def test_closing_the_server_releases_a_hanging_request() -> None:
    async with ScriptedLLM() as llm:
        llm.queue(hang())
        pending = litellm.acompletion(**llm.completion_kwargs(), messages=USER, max_retries=0)
        task = asyncio.create_task(pending)
        await llm.wait_for_requests(1)
        started = time.monotonic()

    assert time.monotonic() - started < 1
    # litellm reports the dropped connection as a 500-class error, not as a timeout.
    with pytest.raises(litellm.InternalServerError, match="Connection error"):
        await task


async def test_wait_for_requests_fails_with_the_count_so_far(llm: ScriptedLLM) -> None:
    with pytest.raises(AssertionError, match=r"waited 0\.05s for 1 requests, got 0"):
        await llm.wait_for_requests(1, timeout=0.05)


async def test_models_endpoint_lists_the_models(llm: ScriptedLLM) -> None:
    async with aiohttp.ClientSession() as session, session.get(f"{llm.api_base}/models") as resp:
        body = await resp.json()

    assert [m["id"] for m in body["data"]] == ["test-model"]


async def test_api_key_is_enforced_when_configured() -> None:
    async with ScriptedLLM(api_key="right") as llm:
        llm.rule = lambda request: text("はい")
        kwargs = {**llm.completion_kwargs(), "api_key": "wrong"}
        with pytest.raises(litellm.AuthenticationError):
            await litellm.acompletion(**kwargs, messages=USER, num_retries=0)
        ok = await litellm.acompletion(**llm.completion_kwargs(), messages=USER, num_retries=0)

    assert ok.choices[0].message.content == "はい"
