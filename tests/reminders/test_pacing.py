"""The send pacer keeps every channel within 5 messages per 5 s and the bot within its budget."""

from __future__ import annotations

import asyncio
import heapq
from collections.abc import Awaitable

import pytest

from bot.runtime.pacing import SendPacer


class FakeTime:
    """Virtual time: sleepers wake in order of their wake time, and time jumps to the next one
    once every task is waiting, so a 20 s burst is checked in milliseconds."""

    def __init__(self) -> None:
        self.now = 0.0
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = 0

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        future = asyncio.get_running_loop().create_future()
        self._order += 1
        heapq.heappush(self._sleepers, (self.now + seconds, self._order, future))
        await future

    async def run(self, *work: Awaitable[None]) -> None:
        """Run work to the end, moving time whenever all of it sleeps."""
        tasks = [asyncio.ensure_future(w) for w in work]
        loop = asyncio.get_running_loop()
        while not all(t.done() for t in tasks):
            # Time may only move once nothing else can run (lock hand-offs take many steps).
            await asyncio.sleep(0)
            while loop._ready:  # type: ignore[attr-defined]  # noqa: ASYNC110
                await asyncio.sleep(0)
            if self._sleepers:
                wake, _, future = heapq.heappop(self._sleepers)
                self.now = max(self.now, wake)
                future.set_result(None)
        await asyncio.gather(*tasks)


def most_in_any_window(times: list[float], window: float) -> int:
    return max(sum(1 for t in times if start <= t < start + window) for start in times)


async def test_one_channel_gets_five_messages_per_five_seconds() -> None:
    time = FakeTime()
    pacer = SendPacer(50, monotonic=time.monotonic, sleep=time.sleep)
    sent: list[float] = []

    async def lane() -> None:
        for _ in range(12):
            await pacer.wait_turn(1)
            sent.append(time.now)

    await time.run(lane())

    assert sent[:5] == [0.0] * 5
    assert most_in_any_window(sent, 5.0) == 5
    assert sent[-1] < 10.2  # the third window, not later


async def test_many_channels_share_the_bots_budget_per_second() -> None:
    time = FakeTime()
    pacer = SendPacer(50, monotonic=time.monotonic, sleep=time.sleep)
    sent: list[float] = []

    async def lane(channel_id: int) -> None:
        for _ in range(10):
            await pacer.wait_turn(channel_id)
            sent.append(time.now)

    await time.run(*(lane(c) for c in range(100)))

    assert len(sent) == 1000
    assert most_in_any_window(sent, 1.0) == 50
    # 1,000 at 50 per second: the last goes out in the 20th second.
    assert 19.0 <= max(sent) < 19.5


async def test_a_process_with_half_the_shards_gets_half_the_budget() -> None:
    time = FakeTime()
    pacer = SendPacer(25, monotonic=time.monotonic, sleep=time.sleep)
    sent: list[float] = []

    async def lanes() -> None:
        for channel_id in range(60):
            await pacer.wait_turn(channel_id)
            sent.append(time.now)

    await time.run(lanes())

    assert most_in_any_window(sent, 1.0) == 25


async def test_resumed_posts_count_against_their_channel_and_the_bots_budget() -> None:
    time = FakeTime()
    time.now = 100.0
    pacer = SendPacer(10, monotonic=time.monotonic, sleep=time.sleep)
    # A stopped process's last posts: five in channel 1 from 4.5 s to 0.5 s ago, eight in channel
    # 2 within the last second; channel 3's post is too old to count.
    channel_one = [(1, 4.5 - n) for n in range(5)]
    channel_two = [(2, 0.9 - n * 0.1) for n in range(8)]
    pacer.resume([*channel_one, *channel_two, (3, 6.0)])
    sent: dict[int, float] = {}

    async def post(channel_id: int) -> None:
        await pacer.wait_channel(channel_id)
        await pacer.wait_turn(channel_id)
        sent[channel_id] = time.now

    await time.run(post(1), post(3), post(4))

    assert sent[1] == pytest.approx(100.52)  # 5 s after the oldest of its five
    # One request left in the bot's second (9 of 10 used): the next waits for the oldest to age.
    assert sorted(sent[c] for c in (3, 4)) == [100.0, pytest.approx(100.12)]
