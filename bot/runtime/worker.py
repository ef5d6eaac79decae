"""The one worker thread for CPU-bound text work (janome), so the event loop stays free."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

_executor: ThreadPoolExecutor | None = None


def text_executor() -> ThreadPoolExecutor:
    """The process's single worker thread for tokenising.

    One thread means one janome tokenizer (~75 MB) for the whole process, and it leaves the
    other core to the event loop.
    """
    global _executor
    if _executor is None:
        _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="text-worker")
    return _executor


async def in_worker(function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Run function on the text worker thread and await its result."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(text_executor(), functools.partial(function, *args, **kwargs))
