"""Group commit: one flush at a time, and what queued meanwhile goes in the next one."""

from __future__ import annotations

import asyncio

import pytest

from bot.reminders.delivery.batching import GroupCommit


class Recorder:
    """A flush that records its batches and waits for a gate before finishing each."""

    def __init__(self) -> None:
        self.batches: list[list[int]] = []
        self.gate = asyncio.Event()
        self.gate.set()
        self.started = asyncio.Event()
        self.fail_next = False
        self.finished: asyncio.Queue[list[int]] = asyncio.Queue()

    async def __call__(self, items: list[int]) -> list[str]:
        self.batches.append(items)
        self.started.set()
        await self.gate.wait()
        if self.fail_next:
            self.fail_next = False
            raise RuntimeError("the database went away")
        self.finished.put_nowait(items)
        return [f"done {item}" for item in items]


async def test_a_lone_write_is_flushed_at_once_and_gets_its_own_result() -> None:
    flush = Recorder()
    commit = GroupCommit(flush)

    assert await commit.submit(1) == "done 1"
    assert flush.batches == [[1]]


async def test_writes_that_arrive_during_a_flush_go_together_in_the_next_one() -> None:
    flush = Recorder()
    flush.gate.clear()
    commit = GroupCommit(flush)
    first = asyncio.create_task(commit.submit(1))
    await flush.started.wait()
    waiting = [asyncio.create_task(commit.submit(n)) for n in (2, 3, 4)]
    await asyncio.sleep(0)
    assert commit.pending == 3

    flush.gate.set()
    results = await asyncio.gather(first, *waiting)

    assert flush.batches == [[1], [2, 3, 4]]
    assert results == ["done 1", "done 2", "done 3", "done 4"]


async def test_a_batch_is_split_at_its_maximum_size() -> None:
    flush = Recorder()
    flush.gate.clear()
    commit = GroupCommit(flush, max_batch=2)
    tasks = [asyncio.create_task(commit.submit(n)) for n in range(5)]
    await flush.started.wait()
    flush.gate.set()
    await asyncio.gather(*tasks)

    assert flush.batches == [[0, 1], [2, 3], [4]]


async def test_a_failed_flush_fails_only_its_own_writes() -> None:
    flush = Recorder()
    flush.gate.clear()
    flush.fail_next = True
    commit = GroupCommit(flush)
    doomed = asyncio.create_task(commit.submit(1))
    await flush.started.wait()
    later = asyncio.create_task(commit.submit(2))
    await asyncio.sleep(0)
    flush.gate.set()

    with pytest.raises(RuntimeError, match="went away"):
        await doomed
    assert await later == "done 2"
    assert await commit.submit(3) == "done 3"


async def test_a_submitter_that_stops_waiting_does_not_take_its_write_back() -> None:
    flush = Recorder()
    flush.gate.clear()
    commit = GroupCommit(flush)
    first = asyncio.create_task(commit.submit(1))
    await flush.started.wait()
    impatient = asyncio.create_task(commit.submit(2))
    await asyncio.sleep(0)
    impatient.cancel()
    flush.gate.set()

    assert await first == "done 1"
    async with asyncio.timeout(5):
        assert await flush.finished.get() == [1]
        assert await flush.finished.get() == [2]
    assert impatient.cancelled()
