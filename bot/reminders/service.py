"""Creating, listing, editing, cancelling and snoozing reminders, with checks for the model."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.reminders.checks import check_future, checked_content, checked_time, first_of_series
from bot.reminders.consent import blocks
from bot.reminders.display import ReminderView
from bot.reminders.errors import (
    InvalidReminder,
    NotReminderOwner,
    ReminderClosed,
    ReminderNotFound,
    ReminderRefused,
    TooManyReminders,
)
from bot.reminders.recipients import Target
from bot.reminders.row_changes import COPIED_COLUMNS, cancelled, rescheduled
from bot.reminders.table import Consent, Reminder, ReminderState
from bot.runtime.clock import Clock
from bot.schedule.repeat import (
    RepeatRule,
    dump_rule,
    load_rule,
)
from bot.schedule.times import parse_local_wall
from bot.settings import Settings
from bot.storage.engine import one_writer, write_sessions

MAX_LISTED = 25
# Discord display names are at most 32 characters; the column allows some slack.
MAX_NAME_CHARS = 100

ChangeListener = Callable[[datetime], None]


class ReminderService:
    """Reminder bookkeeping over the reminders table; every "now" comes from the clock.

    on_change receives each new or moved due time, so the delivery engine can wake earlier.
    """

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        settings: Settings,
        *,
        on_change: ChangeListener | None = None,
    ) -> None:
        self._sessions = sessions
        # Writes read first (limits, ownership): on SQLite they take the write lock at BEGIN.
        self._writes = write_sessions(sessions)
        self._writer = one_writer(sessions)
        self._clock = clock
        self._settings = settings
        self._on_change = on_change

    async def create(
        self,
        *,
        user_id: int,
        user_display_name: str,
        guild_id: int | None,
        channel_id: int,
        when: str,
        content: str,
        tz: ZoneInfo,
        repeat: RepeatRule | None = None,
        origin_message_id: int | None = None,
        language: str | None = None,
        target: Target | None = None,
    ) -> ReminderView:
        """Store a new pending reminder; InvalidReminder says what to ask the user again.

        A reminder for another member waits for their consent: the delivery engine posts the
        request at once (next_attempt_at is now), and the reminder itself only once accepted."""
        now = self._clock.now()
        text = checked_content(content)
        due = checked_time(when, tz, now, self._settings.reminder_max_ahead_days)
        if repeat is not None:
            repeat, due = self._first_of_series(repeat, parse_local_wall(when, tz), tz, now)
        member = None if target is None else target.member
        channel = None if target is None else target.channel
        elsewhere = channel is not None and channel.channel_id != channel_id
        row = Reminder(
            guild_id=guild_id,
            channel_id=channel.channel_id if elsewhere and channel else channel_id,
            target_user_id=None if member is None else member.user_id,
            consent=None if member is None else Consent.ASK,
            to_channel=True if elsewhere else None,
            user_id=user_id,
            user_display_name=user_display_name[:MAX_NAME_CHARS],
            content=text,
            due_at=due,
            timezone=tz.key,
            repeat=dump_rule(repeat),
            occurrence=1,
            state=ReminderState.PENDING,
            attempts=0,
            retries=0,
            next_attempt_at=due if member is None else now,
            # The jump link points into the channel it was asked in.
            origin_message_id=None if elsewhere else origin_message_id,
            created_at=now,
            language=language,
        )
        async with self._writer, self._writes() as session, session.begin():
            if member is not None and guild_id is not None:
                await self._not_blocked(session, guild_id, member.user_id, user_id)
            pending = await session.scalar(
                select(func.count())
                .select_from(Reminder)
                .where(Reminder.user_id == user_id, Reminder.state == ReminderState.PENDING)
            )
            limit = self._settings.reminder_max_per_user
            if (pending or 0) >= limit:
                raise TooManyReminders(
                    f"the user already has {pending} pending reminders, the most allowed is "
                    f"{limit}: ask them to cancel one first (list_reminders shows them)"
                )
            session.add(row)
        self._changed(row.next_attempt_at)
        return ReminderView.of(row, tz)

    async def check_target(self, guild_id: int | None, target: Target, asker_id: int) -> None:
        """Refuse a reminder for a member who stopped the asker's reminders (ReminderRefused)."""
        if target.member is None or guild_id is None:
            return
        async with self._sessions() as session:
            await self._not_blocked(session, guild_id, target.member.user_id, asker_id)

    @staticmethod
    async def _not_blocked(
        session: AsyncSession, guild_id: int, target_id: int, asker_id: int
    ) -> None:
        if await blocks(session, guild_id, target_id, asker_id):
            raise ReminderRefused(
                f"<@{target_id}> stopped reminders from this user in this server, so none can "
                "be set for them: tell the user, without pressing"
            )

    def check_new(
        self, *, when: str, content: str, tz: ZoneInfo, repeat: RepeatRule | None = None
    ) -> None:
        """The checks create makes of the time, text and repeat, without storing anything
        (run before a member is asked to approve): InvalidReminder says what is wrong."""
        now = self._clock.now()
        checked_content(content)
        checked_time(when, tz, now, self._settings.reminder_max_ahead_days)
        if repeat is not None:
            self._first_of_series(repeat, parse_local_wall(when, tz), tz, now)

    async def check_change(
        self,
        reminder_id: int,
        user_id: int,
        tz: ZoneInfo,
        *,
        verb: str,
        when: str | None = None,
        content: str | None = None,
    ) -> None:
        """The checks of cancel, edit and snooze (the member's own reminder, still open, a
        usable new time and text), without changing anything."""
        row = await self._owned(reminder_id, user_id, verb=verb)
        if verb == "snooze":
            if row.state == ReminderState.CANCELLED:
                raise ReminderClosed(
                    f"reminder #{reminder_id} was cancelled, so it cannot be snoozed"
                )
        else:
            self._require_pending(row, verb)
        if verb == "edit" and when is None and content is None:
            raise InvalidReminder("give a new `when`, a new `what`, or both")
        if content is not None:
            checked_content(content)
        if when is not None:
            checked_time(when, tz, self._clock.now(), self._settings.reminder_max_ahead_days)

    def _first_of_series(
        self, repeat: RepeatRule, wall: datetime, tz: ZoneInfo, now: datetime
    ) -> tuple[RepeatRule, datetime]:
        settings = self._settings
        return first_of_series(
            repeat,
            wall,
            tz,
            now,
            min_interval_minutes=settings.reminder_min_interval_minutes,
            max_ahead_days=settings.reminder_max_ahead_days,
        )

    async def list_pending(
        self, user_id: int, tz: ZoneInfo, *, limit: int = MAX_LISTED
    ) -> list[ReminderView]:
        """The user's pending reminders, soonest first, shown in tz."""
        async with self._sessions() as session:
            rows = await session.scalars(
                select(Reminder)
                .where(Reminder.user_id == user_id, Reminder.state == ReminderState.PENDING)
                .order_by(Reminder.due_at, Reminder.id)
                .limit(limit)
            )
            return [ReminderView.of(row, tz) for row in rows]

    async def get(self, reminder_id: int, tz: ZoneInfo | None = None) -> ReminderView | None:
        """Any reminder by id, or None."""
        async with self._sessions() as session:
            row = await session.get(Reminder, reminder_id)
        return None if row is None else ReminderView.of(row, tz)

    async def cancel(self, reminder_id: int, user_id: int, tz: ZoneInfo) -> ReminderView:
        """Cancel the user's pending reminder (a repeating one stops for good)."""
        row = await self._owned(reminder_id, user_id, verb="cancel")
        self._require_pending(row, "cancel")
        await self._apply(row, cancelled(self._clock.now()))
        return ReminderView.of(row, tz)

    async def edit(
        self,
        reminder_id: int,
        user_id: int,
        tz: ZoneInfo,
        *,
        when: str | None = None,
        content: str | None = None,
    ) -> ReminderView:
        """Change the time and/or text of the user's pending reminder."""
        if when is None and content is None:
            raise InvalidReminder("give a new `when`, a new `what`, or both")
        row = await self._owned(reminder_id, user_id, verb="edit")
        self._require_pending(row, "edit")
        changes: dict[str, Any] = {}
        if content is not None:
            changes["content"] = checked_content(content)
        due: datetime | None = None
        if when is not None:
            due = checked_time(when, tz, self._clock.now(), self._settings.reminder_max_ahead_days)
            rule = load_rule(row.repeat)
            if rule is not None:
                # Later occurrences keep the new wall-clock time as asked, even if DST skips it
                # on the day of this one.
                wall = parse_local_wall(when, tz).time().replace(second=0, microsecond=0)
                changes["repeat"] = dump_rule(rule.model_copy(update={"at": wall}))
            changes.update(rescheduled(due), timezone=tz.key)
        # A claim in progress is dropped, so the old time and text are not delivered.
        changes.update(lease_until=None, claimed_by=None)
        await self._apply(row, changes)
        if due is not None:
            self._changed(due)
        return ReminderView.of(row, tz)

    async def snooze(
        self, reminder_id: int, user_id: int, until: datetime, tz: ZoneInfo
    ) -> ReminderView:
        """Remind the owner again at until; a repeating series gets a one-time copy instead."""
        row = await self._owned(reminder_id, user_id, verb="snooze")
        if row.state == ReminderState.CANCELLED:
            raise ReminderClosed(f"reminder #{reminder_id} was cancelled, so it cannot be snoozed")
        now = self._clock.now()
        check_future(until, tz, now, self._settings.reminder_max_ahead_days)
        if row.repeat is not None:
            copy = Reminder(
                **{c: getattr(row, c) for c in COPIED_COLUMNS},
                due_at=until,
                next_attempt_at=until,
                repeat=None,
                occurrence=1,
                state=ReminderState.PENDING,
                attempts=0,
                retries=0,
                created_at=now,
            )
            async with self._writer, self._writes() as session, session.begin():
                session.add(copy)
            self._changed(until)
            return ReminderView.of(copy, tz)
        # The occurrence moves on so the next delivery gets a nonce of its own.
        changes = rescheduled(until) | {
            "occurrence": row.occurrence + 1,
            "state": ReminderState.PENDING,
            "delivered_at": None,
            "lease_until": None,
            "claimed_by": None,
        }
        await self._apply(row, changes, expected_state=row.state)
        self._changed(until)
        return ReminderView.of(row, tz)

    async def done(self, reminder_id: int, user_id: int, tz: ZoneInfo) -> ReminderView:
        """The owner is done with a delivered reminder: a one-time one still pending (snoozed)
        is cancelled, a repeating series carries on."""
        row = await self._owned(reminder_id, user_id, verb="finish")
        if row.state == ReminderState.PENDING and row.repeat is None:
            await self._apply(row, cancelled(self._clock.now()))
        return ReminderView.of(row, tz)

    async def _owned(self, reminder_id: int, user_id: int, *, verb: str) -> Reminder:
        async with self._sessions() as session:
            row = await session.get(Reminder, reminder_id)
        if row is None:
            raise ReminderNotFound(
                f"there is no reminder #{reminder_id}: call list_reminders to see the user's ids"
            )
        # The member a reminder was for may snooze it or mark it done, like its owner.
        theirs = verb in ("snooze", "finish") and row.target_user_id == user_id
        if row.user_id != user_id and not theirs:
            raise NotReminderOwner(
                f"reminder #{reminder_id} belongs to another user and only its owner can "
                f"{verb} it: tell the user so"
            )
        return row

    @staticmethod
    def _require_pending(row: Reminder, verb: str) -> None:
        if row.state != ReminderState.PENDING:
            raise ReminderClosed(
                f"reminder #{row.id} is already {row.state}, so there is nothing to {verb}"
            )

    async def _apply(
        self, row: Reminder, changes: dict[str, Any], *, expected_state: str = ReminderState.PENDING
    ) -> None:
        """Write changes only if the row is still the occurrence we read, then mirror them."""
        async with self._writer, self._writes() as session, session.begin():
            result = await session.execute(
                update(Reminder)
                .where(
                    Reminder.id == row.id,
                    Reminder.state == expected_state,
                    Reminder.occurrence == row.occurrence,
                )
                .values(**changes)
                .execution_options(synchronize_session=False)
            )
        if result.rowcount != 1:  # type: ignore[attr-defined]
            raise ReminderClosed(
                f"reminder #{row.id} was just delivered or changed: call list_reminders and "
                "try again"
            )
        for key, value in changes.items():
            setattr(row, key, value)

    def _changed(self, due: datetime) -> None:
        if self._on_change is not None:
            self._on_change(due)
