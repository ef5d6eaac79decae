"""Posting one claimed reminder and recording the outcome, with the failure policy in the row."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from datetime import datetime, timedelta
from functools import partial
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.reminders.delivery.batching import GroupCommit
from bot.reminders.delivery.claims import Claim, Posted
from bot.reminders.delivery.ledger import DeliveryLedger
from bot.reminders.delivery.sender import (
    ASK,
    EXPIRE,
    LATE_AFTER,
    REMIND,
    OwnerFailureNotifier,
    ReminderDelivery,
    ReminderSender,
    delivery_nonce,
)
from bot.reminders.table import Consent, Reminder
from bot.runtime.clock import Clock
from bot.runtime.send_failures import PermanentSendError, RetryableSendError
from bot.schedule.repeat import following, load_rule
from bot.schedule.times import local_text
from bot.schedule.words import summary, summary_en

log = logging.getLogger(__name__)

# Writing a delivery's outcome (mark, advance or reschedule); callable again after an outage.
Outcome = Callable[[], Coroutine[Any, Any, None]]

# Rejections (403/404) of one occurrence before the reminder fails and the owner is told.
MAX_ATTEMPTS = 5
# Transient errors (429/5xx) of one occurrence that are free; past this one counts as a rejection.
MAX_FREE_RETRIES = 20
REJECTION_BACKOFF = timedelta(seconds=30)
MAX_BACKOFF = timedelta(hours=1)
MAX_RETRY_DELAY = timedelta(minutes=5)


class ReminderCourier:
    """Confirms a claim, sends through the sender, then marks, advances or reschedules the row.

    rescheduled receives every new next_attempt_at, so the engine can wake for it; before_send,
    when given, is awaited between the confirmation and the send (pacing to Discord's limits).
    Confirmations and marks of concurrent deliveries share transactions (group commit).
    """

    def __init__(
        self,
        ledger: DeliveryLedger,
        clock: Clock,
        sender: ReminderSender,
        notify_owner_failure: OwnerFailureNotifier,
        rescheduled: Callable[[datetime], None],
        before_send: Callable[[int], Awaitable[None]] | None = None,
    ) -> None:
        self._ledger = ledger
        self._before_send = before_send
        self._confirms: GroupCommit[tuple[Claim, datetime], bool] = GroupCommit(self._confirm)
        self._marks: GroupCommit[Posted, bool] = GroupCommit(self._mark)
        self._clock = clock
        self._sender = sender
        self._notify_owner_failure = notify_owner_failure
        self._rescheduled = rescheduled

    async def deliver(
        self, claim: Claim, *, write: Callable[[Outcome], None] | None = None
    ) -> None:
        """Post the claimed occurrence once, unless it was cancelled or edited meanwhile.

        The outcome's write (mark, advance or reschedule) is awaited here, or handed to write
        to be awaited elsewhere: the channel's next reminder then need not wait for it, and an
        outage retries the write itself rather than the post.
        """
        now = self._clock.now()
        if not await self._confirms.submit((claim, now)):
            log.info("reminder #%s changed before sending; skipped", claim.row.id)
            return
        if self._before_send is not None:
            await self._before_send(claim.row.channel_id)
            now = self._clock.now()
        delivery = delivery_of(claim, now)
        outcome: Outcome
        try:
            message_id = await self._sender.send(delivery)
        except RetryableSendError as exc:
            outcome = partial(self._retry_later, claim, delivery, exc)
        except PermanentSendError as exc:
            outcome = partial(self._count_rejection, claim, delivery, exc.reason)
        except Exception as exc:
            log.exception("reminder #%s: the sender raised", claim.row.id)
            reason = f"{type(exc).__name__}: {exc}"
            outcome = partial(self._count_rejection, claim, delivery, reason)
        else:
            if delivery.step == REMIND:
                outcome = partial(self._record_sent, claim, message_id)
            else:
                outcome = partial(self._record_consent_step, claim, delivery.step)
        if write is None:
            await outcome()
        else:
            write(outcome)

    async def _record_sent(self, claim: Claim, message_id: int) -> None:
        row = claim.row
        now = self._clock.now()
        rule = load_rule(row.repeat)
        upcoming = None
        if rule is not None:
            # Occurrences missed while the bot was down are skipped, not posted in a burst.
            upcoming = following(rule, row.due_at, row.occurrence, zone(row.timezone), after=now)
        if upcoming is None:
            recorded = await self._marks.submit(Posted(claim, message_id, now))
        else:
            recorded = await self._ledger.advance(claim, message_id, now, *upcoming)
        if not recorded:
            log.warning("reminder #%s was sent but changed meanwhile; left as it is", row.id)
        elif upcoming is not None:
            self._rescheduled(upcoming[0])

    async def _record_consent_step(self, claim: Claim, step: str) -> None:
        if step == ASK:
            # The request is out: the row now waits for the member's answer until its time.
            if await self._ledger.consent_asked(claim):
                self._rescheduled(claim.row.due_at)
        elif not await self._ledger.consent_expired(claim, self._clock.now()):
            log.warning("reminder #%s expired but changed meanwhile", claim.row.id)

    async def _confirm(self, batch: Sequence[tuple[Claim, datetime]]) -> list[bool]:
        # One "now" for the batch: the latest, so no lease is renewed for less than its length.
        return await self._ledger.confirm_many([c for c, _ in batch], max(t for _, t in batch))

    async def _mark(self, batch: Sequence[Posted]) -> list[bool]:
        return await self._ledger.mark_delivered_many(batch)

    async def _retry_later(
        self, claim: Claim, delivery: ReminderDelivery, error: RetryableSendError
    ) -> None:
        row = claim.row
        retries = row.retries + 1
        if retries > MAX_FREE_RETRIES:
            await self._count_rejection(claim, delivery, f"Discord kept failing: {error}", 0)
            return
        if error.retry_after is not None:
            delay = timedelta(seconds=max(0.0, error.retry_after))
        else:
            delay = min(timedelta(seconds=2**retries), MAX_RETRY_DELAY)
        next_attempt = self._clock.now() + delay
        log.info("reminder #%s: %s; retrying in %s", row.id, error, delay)
        if await self._ledger.reschedule(
            claim,
            next_attempt_at=next_attempt,
            attempts=row.attempts,
            retries=retries,
            last_error=str(error),
        ):
            self._rescheduled(next_attempt)

    async def _count_rejection(
        self, claim: Claim, delivery: ReminderDelivery, reason: str, retries: int | None = None
    ) -> None:
        row = claim.row
        attempts = row.attempts + 1
        failed = attempts >= MAX_ATTEMPTS
        next_attempt = self._clock.now() + min(REJECTION_BACKOFF * 2 ** (attempts - 1), MAX_BACKOFF)
        log.warning("reminder #%s: attempt %s failed: %s", row.id, attempts, reason)
        recorded = await self._ledger.reschedule(
            claim,
            next_attempt_at=next_attempt,
            attempts=attempts,
            retries=row.retries if retries is None else retries,
            last_error=reason,
            failed=failed,
        )
        if not recorded:
            return
        if not failed:
            self._rescheduled(next_attempt)
            return
        try:
            await self._notify_owner_failure(delivery, reason)
        except Exception:
            log.exception("reminder #%s failed and its owner could not be told", row.id)


def step_of(row: Reminder) -> str:
    """What a due row posts: the consent request, the asker's word that it expired, or the
    reminder itself."""
    if row.consent == Consent.ASK:
        return ASK
    if row.consent == Consent.ASKED:
        return EXPIRE
    return REMIND


def delivery_of(claim: Claim, now: datetime) -> ReminderDelivery:
    """What the sender needs to post the claimed occurrence at now."""
    row = claim.row
    step = step_of(row)
    tz = zone(row.timezone)
    late = now - row.due_at
    rule = load_rule(row.repeat)
    return ReminderDelivery(
        reminder_id=row.id,
        occurrence=row.occurrence,
        guild_id=row.guild_id,
        channel_id=row.channel_id,
        user_id=row.user_id,
        user_display_name=row.user_display_name,
        content=row.content,
        due_at=row.due_at,
        due_text=local_text(row.due_at, tz, now=now),
        late_by=late if late > LATE_AFTER else None,
        origin_message_id=row.origin_message_id,
        repeat_text=None if rule is None else summary(rule),
        repeat_text_en=None if rule is None else summary_en(rule),
        nonce=delivery_nonce(row.id, row.occurrence, step),
        attempt=row.attempts + row.retries + 1,
        language=row.language,
        target_user_id=row.target_user_id,
        to_channel=bool(row.to_channel),
        step=step,
    )


def zone(name: str) -> ZoneInfo:
    """The reminder's zone; UTC if the stored name is unknown to this machine's tzdata."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")
