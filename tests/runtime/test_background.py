"""Ending background work: a task that swallows one cancellation is cancelled again, and one
that never ends is handed back after the time allowed instead of holding shutdown forever."""

from __future__ import annotations

import asyncio

from bot.runtime.background import cancel_and_wait, cancel_within


async def _swallows_one_cancel(cancels: list[int]) -> None:
    try:
        await asyncio.sleep(60)
    except asyncio.CancelledError:
        cancels.append(1)  # as an anyio task group closing a subprocess may do
    await asyncio.sleep(60)


async def _ends_only_when_released(release: asyncio.Event) -> None:
    while not release.is_set():
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            continue


async def test_a_task_that_swallowed_a_cancel_is_cancelled_again_and_ends() -> None:
    cancels: list[int] = []
    task = asyncio.create_task(_swallows_one_cancel(cancels))
    await asyncio.sleep(0)

    stuck = await cancel_within([task], 5, every=0.05)

    assert stuck == set() and task.cancelled() and cancels == [1]


async def test_a_task_that_never_ends_is_handed_back_after_the_time_allowed() -> None:
    release = asyncio.Event()
    task = asyncio.create_task(_ends_only_when_released(release))
    await asyncio.sleep(0)

    stuck = await cancel_within([task], 0.2, every=0.05)

    assert stuck == {task} and not task.done()
    release.set()  # the test's own clean-up: the next cancellation ends it
    task.cancel()
    await asyncio.wait([task])


async def test_cancel_and_wait_ends_every_task_given_and_skips_none() -> None:
    tasks = [asyncio.create_task(asyncio.sleep(60)) for _ in range(3)]
    await asyncio.sleep(0)

    await cancel_and_wait(tasks[0], None, *tasks[1:])

    assert all(task.cancelled() for task in tasks)
