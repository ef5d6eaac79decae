"""race(): the work it waits on never outlives it, whether Stop or a cancellation ends it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from zoneinfo import ZoneInfo

import pytest

from bot.agent.runs import Handler, RunRequest, Stopped, StopSignal, race, stop_reason


async def test_a_cancelled_race_cancels_its_work_so_the_generator_can_be_closed() -> None:
    inside = asyncio.Event()
    closed: list[str] = []

    async def stream() -> AsyncIterator[str]:
        try:
            inside.set()
            await asyncio.Event().wait()  # a model that went silent
            yield "never"
        finally:
            closed.append("closed")

    generator = stream()

    async def consume() -> None:
        try:
            await race(generator.__anext__(), asyncio.Event())
        finally:
            # What the agent's model round does on its way out.
            await generator.aclose()

    task = asyncio.create_task(consume())
    await inside.wait()
    task.cancel()

    with pytest.raises(asyncio.CancelledError):
        await task
    assert closed == ["closed"]


async def test_stop_ends_the_race_with_stopped_and_cancels_the_work() -> None:
    stop = StopSignal()
    started = asyncio.Event()
    cancelled = asyncio.Event()

    async def work() -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    racing = asyncio.create_task(race(work(), stop))
    await started.wait()
    stop.request("shutdown")

    with pytest.raises(Stopped):
        await racing
    assert cancelled.is_set()
    assert stop_reason(stop) == "shutdown"


def test_the_first_reason_to_stop_is_the_one_reported() -> None:
    stop = StopSignal()
    stop.request("member")
    stop.request("shutdown")

    assert stop_reason(stop) == "member"
    assert stop_reason(asyncio.Event()) == "member"


def test_a_run_limited_to_some_tools_offers_only_those_and_keeps_the_limit_in_its_row() -> None:
    async def instructions(_: object) -> str:
        return ""

    handler = Handler("general", instructions, ("get_forecast", "create_reminder", "write_note"))
    request = RunRequest.for_message(
        user_id=1,
        user_name="hana",
        channel_id=2,
        guild_id=3,
        handler="general",
        timezone=ZoneInfo("Asia/Tokyo"),
    )
    assert request.narrowed(handler) == handler
    limited = RunRequest.from_json(
        RunRequest(**{**request.__dict__, "only_tools": ("get_forecast", "search_notes")}).to_json()
    )
    assert limited.only_tools == ("get_forecast", "search_notes")
    assert limited.narrowed(handler).tools == ("get_forecast",)
