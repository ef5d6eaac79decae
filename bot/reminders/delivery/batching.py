"""Group commit: writes that queue up while one transaction runs go to the database together.

A burst at Discord's limits posts 50 reminders a second, and each needs its lease renewed right
before sending and its row marked right after. One transaction per row made the database the
bottleneck (on SQLite every writer waits for the one before); here the first write goes at
once and whatever arrives meanwhile waits for the next flush, so a quiet bot still writes each
row immediately and a busy one writes dozens per transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

# Rows per statement: keeps bound parameters far below SQLite's and asyncpg's limits.
MAX_BATCH = 100


class GroupCommit(Generic[Item, Result]):
    """Runs flush(items) over everything submitted while the previous flush ran, one flush at
    a time; each submitter gets its own item's result, or the flush's exception."""

    def __init__(
        self,
        flush: Callable[[list[Item]], Awaitable[Sequence[Result]]],
        *,
        max_batch: int = MAX_BATCH,
    ) -> None:
        self._flush = flush
        self._max_batch = max_batch
        self._pending: list[tuple[Item, asyncio.Future[Result]]] = []
        self._runner: asyncio.Task[None] | None = None

    @property
    def pending(self) -> int:
        """Items waiting for a flush (the one running not counted)."""
        return len(self._pending)

    async def submit(self, item: Item) -> Result:
        """Queue item for the next flush and wait for its result."""
        future: asyncio.Future[Result] = asyncio.get_running_loop().create_future()
        self._pending.append((item, future))
        if self._runner is None:
            self._runner = asyncio.create_task(self._run(), name="reminder-group-commit")
        # A cancelled submitter leaves its item in the batch: the write still happens, as it
        # would have had the submitter waited.
        return await asyncio.shield(future)

    async def _run(self) -> None:
        try:
            while self._pending:
                batch = self._pending[: self._max_batch]
                del self._pending[: self._max_batch]
                await self._flush_one(batch)
        finally:
            self._runner = None
            for _, future in self._pending:
                future.cancel()
            self._pending.clear()

    async def _flush_one(self, batch: list[tuple[Item, asyncio.Future[Result]]]) -> None:
        try:
            results = await self._flush([item for item, _ in batch])
        except Exception as exc:
            for _, future in batch:
                if not future.done():
                    future.set_exception(exc)
                    # Read here so a submitter that stopped waiting leaves no warning.
                    with contextlib.suppress(Exception):
                        future.exception()
            return
        except BaseException:
            for _, future in batch:
                future.cancel()
            raise
        for (_, future), result in zip(batch, results, strict=True):
            if not future.done():
                future.set_result(result)
