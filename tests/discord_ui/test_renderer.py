"""The renderer edits a streaming answer at most once a second and pings only the requester."""

from __future__ import annotations

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


async def test_deltas_within_a_second_are_batched_into_one_edit() -> None:
    channel, ticker = FakeChannel(), Ticker()
    renderer = RunRenderer(channel, requester_id=7, run_id=None, clock=ticker)  # type: ignore[arg-type]

    await renderer.render(ev.TextDelta("あ"))
    for _ in range(10):
        ticker.now += 0.05
        await renderer.render(ev.TextDelta("い"))
    ticker.now += 0.6
    await renderer.render(ev.TextDelta("う"))
    await renderer.render(ev.Done("", "answered"))

    whole = "あ" + "い" * 10 + "う"
    message = channel.sent[0]
    assert message.edits[0]["content"] == whole + " …"
    assert [e["content"] for e in message.edits] == [whole + " …", whole]
    assert message.content == whole


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
