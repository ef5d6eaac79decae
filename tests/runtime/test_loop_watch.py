"""The event-loop watchdog keeps steps that hold the loop's thread busy after start-up."""

from __future__ import annotations

import asyncio
import time

from bot.runtime.worker import watch_event_loop


def busy(seconds: float) -> None:
    """Keep this thread on the CPU for seconds of its own time."""
    until = time.thread_time() + seconds
    while time.thread_time() < until:
        pass


async def test_a_busy_step_after_start_up_fails_the_watch_and_waiting_never_does() -> None:
    watch = watch_event_loop(50)
    assert watch is not None
    try:
        asyncio.get_running_loop().call_soon(busy, 0.08)
        await asyncio.sleep(0.01)
        assert watch.slow_steps == []  # start-up steps are logged, not kept

        watch.arm()
        await asyncio.sleep(0.2)  # waiting is not work
        assert watch.slow_steps == []
        asyncio.get_running_loop().call_soon(busy, 0.08)
        await asyncio.sleep(0.01)
    finally:
        watch.close()

    [step] = watch.slow_steps
    assert "busy" in step


def test_the_watch_is_off_without_a_threshold() -> None:
    assert watch_event_loop(0) is None
