"""The renderer edits a streaming answer at most once a second and pings only the requester."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from bot.agent import events as ev
from bot.discord_ui.answering.renderer import RunRenderer


@dataclass
class FakeMessage:
    """Records edits like a discord.Message would receive them."""

    id: int
    content: str
    edits: list[dict[str, Any]] = field(default_factory=list)

    async def edit(self, **kwargs: Any) -> FakeMessage:
        self.edits.append(kwargs)
        self.content = kwargs.get("content", self.content)
        return self


@dataclass
class FakeChannel:
    """Records sends like a discord channel."""

    id: int = 5
    sent: list[FakeMessage] = field(default_factory=list)
    kwargs: list[dict[str, Any]] = field(default_factory=list)

    async def send(self, content: str = "", **kwargs: Any) -> FakeMessage:
        message = FakeMessage(len(self.sent) + 1, content)
        self.sent.append(message)
        self.kwargs.append(kwargs)
        return message


class Ticker:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_a_reply_still_streaming_after_a_second_is_posted_with_a_cursor_then_completed() -> (
    None
):
    channel, ticker = FakeChannel(), Ticker()
    renderer = RunRenderer(channel, requester_id=7, run_id=None, clock=ticker)  # type: ignore[arg-type]

    await renderer.render(ev.TextDelta("あ"))
    for _ in range(10):
        ticker.now += 0.05
        await renderer.render(ev.TextDelta("い"))
    assert channel.sent == []  # held while the typing indicator shows
    ticker.now += 0.6
    await renderer.render(ev.TextDelta("う"))
    await renderer.render(ev.Done("", "answered"))

    whole = "あ" + "い" * 10 + "う"
    [message] = channel.sent
    assert [e["content"] for e in message.edits] == [whole]
    assert message.content == whole


async def test_a_reply_complete_within_a_second_is_one_post_without_cursor_or_stop() -> None:
    channel, ticker = FakeChannel(), Ticker()
    renderer = RunRenderer(channel, requester_id=7, run_id="abc123", clock=ticker)  # type: ignore[arg-type]

    async def answer() -> AsyncIterator[ev.AgentEvent]:
        for piece in ("こんにちは", "、", "元気です"):
            ticker.now += 0.1
            yield ev.TextDelta(piece)
        yield ev.RoundEnd(1)
        yield ev.Done("こんにちは、元気です", "answered")

    await renderer.consume(answer())

    [message] = channel.sent
    assert message.content == "こんにちは、元気です"
    assert message.edits == []
    assert "view" not in channel.kwargs[0]


@dataclass
class WatchedChannel(FakeChannel):
    """A channel that says when something was posted in it."""

    posted: asyncio.Event = field(default_factory=asyncio.Event)

    async def send(self, content: str = "", **kwargs: Any) -> FakeMessage:
        message = await super().send(content, **kwargs)
        self.posted.set()
        return message


async def test_text_that_stops_arriving_is_posted_after_a_second_with_stop() -> None:
    channel = WatchedChannel()
    renderer = RunRenderer(channel, requester_id=7, run_id="abc123")  # type: ignore[arg-type]

    async def answer() -> AsyncIterator[ev.AgentEvent]:
        yield ev.TextDelta("少し考えます")
        # The model pauses mid-reply: the text shows anyway, with its cursor and Stop.
        await asyncio.wait_for(channel.posted.wait(), 5)
        assert channel.sent[0].content == "少し考えます …"
        yield ev.TextDelta("。できました")
        yield ev.Done("", "answered")

    await renderer.consume(answer())

    [message] = channel.sent
    assert channel.kwargs[0]["view"] is not None
    assert [e.get("content") for e in message.edits] == ["少し考えます。できました", None]
    assert message.edits[-1] == {"view": None}


async def test_every_send_allows_only_the_requester_to_be_pinged() -> None:
    channel = FakeChannel()
    renderer = RunRenderer(channel, requester_id=7, run_id=None)  # type: ignore[arg-type]

    await renderer.render(ev.TextDelta("@everyone こんにちは"))
    await renderer.render(ev.Done("", "answered"))

    allowed = channel.kwargs[0]["allowed_mentions"].to_dict()
    assert allowed["parse"] == []
    assert allowed["users"] == [7]
    assert allowed.get("roles", []) == []


async def test_stray_brackets_around_a_tool_call_are_not_posted() -> None:
    channel, ticker = FakeChannel(), Ticker()
    renderer = RunRenderer(channel, requester_id=7, run_id=None, clock=ticker)  # type: ignore[arg-type]

    await renderer.render(ev.TextDelta("{"))
    await renderer.render(ev.ToolCallStarted("call_1", "list_reminders"))
    await renderer.render(ev.RoundEnd(1))
    ticker.now += 2
    await renderer.render(ev.TextDelta(" }"))
    ticker.now += 2
    await renderer.render(ev.TextDelta("}\n"))
    await renderer.render(ev.Done("}}", "answered"))

    assert channel.sent == []


async def test_text_beside_punctuation_is_posted_whole() -> None:
    channel = FakeChannel()
    renderer = RunRenderer(channel, requester_id=7, run_id=None)  # type: ignore[arg-type]

    await renderer.render(ev.TextDelta("「"))
    await renderer.render(ev.TextDelta("了解」！"))
    await renderer.render(ev.RoundEnd(1))
    await renderer.render(ev.TextDelta("👍"))
    await renderer.render(ev.Done("👍", "answered"))

    assert [m.content for m in channel.sent] == ["「了解」！", "👍"]


async def test_the_first_post_waits_for_the_typing_request_that_ran_beside_the_run() -> None:
    channel = FakeChannel()
    typing_done = asyncio.Event()

    async def typing_shown() -> None:
        await typing_done.wait()

    renderer = RunRenderer(
        channel,  # type: ignore[arg-type]
        requester_id=7,
        run_id=None,
        before_first_post=typing_shown,
    )

    async def answer() -> AsyncIterator[ev.AgentEvent]:
        yield ev.TextDelta("はい")
        yield ev.Done("はい", "answered")

    rendering = asyncio.ensure_future(renderer.consume(answer()))
    await asyncio.sleep(0.05)
    assert channel.sent == []  # "typing…" must not arrive after the reply
    typing_done.set()
    await rendering

    assert [m.content for m in channel.sent] == ["はい"]
