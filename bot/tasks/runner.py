"""Running due tasks: claim each run once, check it may run, run the model, post, record.

A run later than the grace (every process was down) is skipped, written to the history and said
in one line; one inside it runs and its post says how late it is. Model calls are paced: at
most `concurrency` runs call the model at once, so a burst at 07:00 neither floods the provider
nor starves members' mentions (which never wait on this semaphore).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Literal, Protocol

from bot.i18n import Text, moment
from bot.runtime.background import cancel_and_wait
from bot.runtime.clock import Clock
from bot.schedule.times import ENGLISH_UNITS, JAPANESE_UNITS, duration_text
from bot.tasks import words
from bot.tasks.ledger import RunClaim, TaskLedger
from bot.tasks.service import TaskView
from bot.tasks.table import RunStatus

log = logging.getLogger(__name__)

# Below this a run counts as on time and its post says nothing about lateness.
LATE_AFTER = timedelta(minutes=1)
# A task pauses itself after this many failed runs in a row.
FAILURES_TO_PAUSE = 3
BATCH = 100

FailureKind = Literal["gone", "refused", "away"]


class PostFailed(Exception):
    """The destination refused the post: gone (deleted), refused (no permission) or away
    (Discord did not answer); raised by the poster."""

    def __init__(self, kind: FailureKind, detail: str = "") -> None:
        super().__init__(detail or kind)
        self.kind: FailureKind = kind


class RunFailed(Exception):
    """The run could not make an answer; reason says why, in the task's language."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Answer:
    """What the model answered, to post."""

    text: str


@dataclass(frozen=True)
class Waiting:
    """A tool of the run needs its owner: a card waits for them (the run goes on from it)."""


RunResult = Answer | Waiting


class TaskExecutor(Protocol):
    """Runs a task's prompt with its tools (implemented over the agent)."""

    async def execute(self, claim: RunClaim) -> RunResult:
        """The answer, or Waiting; raise RunFailed when no answer can be made."""
        ...


class TaskPoster(Protocol):
    """Posts to a task's destination (implemented by the feature's Discord part)."""

    async def post(self, task: TaskView, text: str, nonce: str) -> int:
        """Post text (split when long) with the nonce; the first message's id. Raise
        PostFailed when the destination refuses it."""
        ...


# Why a run may not call the model now (a spent budget, tasks switched off), in the task's
# language, or None.
RunGate = Callable[[TaskView], Awaitable[str | None]]
# Tells a task's owner something (a DM); never raises.
OwnerNotice = Callable[[TaskView, str], Awaitable[None]]
# Counts one finished run: its outcome and how late it started.
RunObserver = Callable[[RunStatus, timedelta], None]


def _late_text(delta: timedelta, task: TaskView) -> str:
    return duration_text(delta, JAPANESE_UNITS if task.language == "ja" else ENGLISH_UNITS)


class TaskRunner:
    """Claims due runs and carries each one to its post and its line in the history."""

    def __init__(
        self,
        ledger: TaskLedger,
        clock: Clock,
        executor: TaskExecutor,
        poster: TaskPoster,
        *,
        grace: timedelta,
        concurrency: int,
        notify_owner: OwnerNotice,
        gate: RunGate | None = None,
        observe: RunObserver | None = None,
    ) -> None:
        self._ledger = ledger
        self._clock = clock
        self._executor = executor
        self._poster = poster
        self._grace = grace
        self._model_calls = asyncio.Semaphore(concurrency)
        self._notify_owner = notify_owner
        self._gate = gate
        self._observe = observe
        self._lock = asyncio.Lock()
        self._flights: set[asyncio.Future[RunStatus]] = set()

    async def run_due(self, *, wait: bool = True) -> int:
        """Claim every due run and carry them out side by side; how many were claimed. Without
        wait the runs go on in the background (the minute's tick never waits on the model)."""
        async with self._lock:
            claims: list[RunClaim] = []
            while batch := await self._ledger.claim_due(self._clock.now(), BATCH):
                claims.extend(batch)
                if len(batch) < BATCH:
                    break
        runs = [asyncio.ensure_future(self._carry(claim)) for claim in claims]
        self._flights.update(runs)
        for run in runs:
            run.add_done_callback(self._flights.discard)
        if wait and runs:
            await asyncio.gather(*runs)
        return len(claims)

    async def drain(self) -> None:
        """Wait until every run in flight has ended (tests, benches)."""
        while self._flights:
            await asyncio.gather(*list(self._flights), return_exceptions=True)

    async def stop(self, grace_seconds: float = 5.0) -> None:
        """Let runs in flight end for up to grace_seconds, then cut them off: a run cut off
        keeps its lease and is taken over later, its post guarded by the nonce."""
        if not self._flights:
            return
        _, late = await asyncio.wait(list(self._flights), timeout=grace_seconds)
        for run in late:
            run.cancel()
        await asyncio.gather(*late, return_exceptions=True)

    async def run_now(self, task: TaskView) -> RunStatus:
        """Run a task at once ("run now"); its outcome."""
        claim = await self._ledger.claim_now(task, self._clock.now())
        return await self._carry(claim)

    async def _carry(self, claim: RunClaim) -> RunStatus:
        try:
            return await self._run(claim)
        except Exception:
            # The claim's lease runs out and another attempt takes it; the nonce guards the post.
            log.exception("task #%s: the run stopped unexpectedly", claim.task.id)
            return RunStatus.RUNNING

    async def _run(self, claim: RunClaim) -> RunStatus:
        task = claim.task
        late = timedelta(0) if claim.manual else max(timedelta(0), self._clock.now() - claim.due_at)
        due = moment(claim.due_at, "f")
        if late > self._grace:
            line = words.SKIPPED_OFFLINE(
                task.language, id=task.id, due=due, late=_late_text(late, task)
            )
            return await self._skip(claim, late, line, words.OFFLINE(task.language))
        if self._gate is not None and (refusal := await self._gate(task)) is not None:
            line = words.SKIPPED_BECAUSE(task.language, id=task.id, due=due, reason=refusal)
            return await self._skip(claim, late, line, refusal)
        try:
            async with self._model_calls, self._renewing(claim):
                result = await self._executor.execute(claim)
        except RunFailed as failure:
            return await self._fail(claim, late, failure.reason)
        if isinstance(result, Waiting):
            await self._ledger.wait_for_person(claim, self._clock.now())
            return RunStatus.WAITING
        text = result.text.strip()
        if not text:
            return await self._fail(claim, late, words.NO_ANSWER(task.language))
        if late >= LATE_AFTER:
            text += "\n" + words.LATE_NOTE(task.language, late=_late_text(late, task), due=due)
        try:
            message_id = await self._poster.post(task, text, claim.nonce)
        except PostFailed as failure:
            return await self._fail(claim, late, _failure_words(failure).form(task.language))
        status = RunStatus.LATE if late >= LATE_AFTER else RunStatus.ON_TIME
        await self._finish(claim, status, late, message_id=message_id)
        return status

    async def _skip(self, claim: RunClaim, late: timedelta, line: str, reason: str) -> RunStatus:
        # Recorded first: a crash after it never posts the line twice, a crash before it
        # reruns the skip with the same nonce.
        if await self._finish(claim, RunStatus.SKIPPED, late, reason=reason) is None:
            return RunStatus.SKIPPED
        with contextlib.suppress(PostFailed):
            await self._poster.post(claim.task, line, claim.nonce)
        return RunStatus.SKIPPED

    async def _fail(self, claim: RunClaim, late: timedelta, reason: str) -> RunStatus:
        failures = await self._finish(claim, RunStatus.FAILED, late, reason=reason)
        task = claim.task
        log.warning("task #%s failed: %s", task.id, reason)
        if (
            failures is not None
            and failures >= FAILURES_TO_PAUSE
            and await self._ledger.pause(task.id, reason, self._clock.now())
        ):
            notice = words.PAUSED_AFTER_FAILURES(
                task.language,
                id=task.id,
                prompt=_short(task.prompt),
                count=failures,
                reason=reason,
            )
            await self._notify_owner(task, notice)
        return RunStatus.FAILED

    async def _finish(
        self,
        claim: RunClaim,
        status: RunStatus,
        late: timedelta,
        *,
        message_id: int | None = None,
        reason: str | None = None,
    ) -> int | None:
        failures = await self._ledger.finish(
            claim,
            status,
            self._clock.now(),
            late_seconds=int(late.total_seconds()),
            message_id=message_id,
            reason=reason,
        )
        if failures is not None and self._observe is not None:
            self._observe(status, late)
        return failures

    @contextlib.asynccontextmanager
    async def _renewing(self, claim: RunClaim) -> AsyncIterator[None]:
        """Keep the claim's lease while the model works (a long run is not taken over)."""

        async def renew() -> None:
            while True:
                await asyncio.sleep(self._ledger.lease.total_seconds() / 3)
                with contextlib.suppress(Exception):
                    await self._ledger.renew(claim, self._clock.now())

        keeper = asyncio.create_task(renew(), name=f"task-{claim.task.id}-lease")
        try:
            yield
        finally:
            await cancel_and_wait(keeper)


def _failure_words(failure: PostFailed) -> Text:
    if failure.kind == "gone":
        return words.CHANNEL_GONE
    if failure.kind == "refused":
        return words.PERMISSION_LOST
    return words.DISCORD_AWAY


def _short(prompt: str, limit: int = 40) -> str:
    return prompt if len(prompt) <= limit else prompt[: limit - 1] + "…"
