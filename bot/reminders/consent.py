"""A member's answer to a reminder someone else set for them: accept, decline, or stop every
reminder from that person in this server. Only the member it is for may answer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.i18n import Language, moment, replies
from bot.reminders.display import ReminderView
from bot.reminders.errors import NotReminderOwner, ReminderClosed, ReminderNotFound
from bot.reminders.row_changes import cancelled
from bot.reminders.table import Consent, Reminder, ReminderBlock, ReminderState
from bot.runtime.clock import Clock
from bot.storage.engine import one_writer, write_sessions

ACCEPT = "accept"
DECLINE = "decline"
BLOCK = "block"
CONSENT_ACTIONS = (ACCEPT, DECLINE, BLOCK)
# Consent still open: the request is posted (or about to be).
_OPEN = (Consent.ASK, Consent.ASKED)


async def blocks(session: AsyncSession, guild_id: int, user_id: int, asker_id: int) -> bool:
    """Whether the member stopped the asker's reminders in this server."""
    found = await session.scalar(
        select(ReminderBlock.id).where(
            ReminderBlock.guild_id == guild_id,
            ReminderBlock.user_id == user_id,
            ReminderBlock.blocked_user_id == asker_id,
        )
    )
    return found is not None


@dataclass(frozen=True)
class ConsentReply:
    """The outcome of a click: ok or refused, the clicker's sentence, the stamp for the post."""

    ok: bool
    message: str
    stamp: str = ""


class ReminderConsent:
    """Records the answer of the member a reminder is for, as conditional updates: a request
    answered twice, or after its time, changes nothing."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        on_change: Callable[[datetime], None] | None = None,
    ) -> None:
        self._sessions = sessions
        self._writes = write_sessions(sessions)
        self._writer = one_writer(sessions)
        self._clock = clock
        self._on_change = on_change

    async def accept(self, reminder_id: int, user_id: int) -> ReminderView:
        """The member takes the reminder: it is delivered to them at its time."""
        row = await self._theirs(reminder_id, user_id)
        now = self._clock.now()
        if row.due_at <= now:
            raise ReminderClosed(f"reminder #{reminder_id}'s time has passed")
        values = {
            "consent": Consent.ACCEPTED,
            "next_attempt_at": row.due_at,
            # A claim posting the request right now is dropped: its outcome finds no row.
            "lease_until": None,
            "claimed_by": None,
        }
        await self._answer(row, values, Reminder.due_at > now)
        if self._on_change is not None:
            self._on_change(row.due_at)
        return ReminderView.of(row)

    async def decline(self, reminder_id: int, user_id: int) -> ReminderView:
        """The member refuses the reminder: it is never delivered."""
        row = await self._theirs(reminder_id, user_id)
        values = {**cancelled(self._clock.now()), "consent": Consent.DECLINED}
        await self._answer(row, values)
        return ReminderView.of(row)

    async def block(self, reminder_id: int, user_id: int) -> int:
        """The member stops every reminder from the asker in this server: this one and every
        other still waiting for them are declined, and new ones are refused. Returns how many
        were declined."""
        row = await self._theirs(reminder_id, user_id, open_only=False)
        now = self._clock.now()
        guild_id = row.guild_id if row.guild_id is not None else 0
        async with self._writer, self._writes() as session, session.begin():
            if not await blocks(session, guild_id, user_id, row.user_id):
                session.add(
                    ReminderBlock(
                        guild_id=guild_id,
                        user_id=user_id,
                        blocked_user_id=row.user_id,
                        created_at=now,
                    )
                )
            result = await session.execute(
                update(Reminder)
                .where(
                    Reminder.target_user_id == user_id,
                    Reminder.user_id == row.user_id,
                    Reminder.guild_id == row.guild_id,
                    Reminder.state == ReminderState.PENDING,
                )
                .values(**cancelled(now), consent=Consent.DECLINED)
                .execution_options(synchronize_session=False)
            )
        return int(result.rowcount or 0)  # type: ignore[attr-defined]

    async def blocked(self, guild_id: int, user_id: int) -> list[int]:
        """Whose reminders the member stopped in this server."""
        async with self._sessions() as session:
            rows = await session.scalars(
                select(ReminderBlock.blocked_user_id).where(
                    ReminderBlock.guild_id == guild_id, ReminderBlock.user_id == user_id
                )
            )
            return list(rows)

    async def unblock(self, guild_id: int, user_id: int, blocked_user_id: int) -> bool:
        """Take reminders from that member again; False when they were not blocked."""
        async with self._writer, self._writes() as session, session.begin():
            rows = list(
                await session.scalars(
                    select(ReminderBlock).where(
                        ReminderBlock.guild_id == guild_id,
                        ReminderBlock.user_id == user_id,
                        ReminderBlock.blocked_user_id == blocked_user_id,
                    )
                )
            )
            for row in rows:
                await session.delete(row)
        return bool(rows)

    async def _theirs(self, reminder_id: int, user_id: int, *, open_only: bool = True) -> Reminder:
        async with self._sessions() as session:
            row = await session.get(Reminder, reminder_id)
        if row is None or row.target_user_id is None:
            raise ReminderNotFound(f"there is no reminder #{reminder_id} for anyone else")
        if row.target_user_id != user_id:
            raise NotReminderOwner(f"reminder #{reminder_id} is for another member")
        if open_only and (row.state != ReminderState.PENDING or row.consent not in _OPEN):
            raise ReminderClosed(f"reminder #{reminder_id} was already answered or has expired")
        return row

    async def _answer(self, row: Reminder, values: dict[str, object], *extra: object) -> None:
        async with self._writer, self._writes() as session, session.begin():
            result = await session.execute(
                update(Reminder)
                .where(
                    Reminder.id == row.id,
                    Reminder.state == ReminderState.PENDING,
                    Reminder.consent.in_(_OPEN),
                    *extra,  # type: ignore[arg-type]
                )
                .values(**values)
                .execution_options(synchronize_session=False)
            )
        if result.rowcount != 1:  # type: ignore[attr-defined]
            raise ReminderClosed(f"reminder #{row.id} was already answered or has expired")
        for key, value in values.items():
            setattr(row, key, value)


class ConsentButtons:
    """Accept / Decline / Stop all under a request, answered in sentences for the member."""

    def __init__(self, consent: ReminderConsent) -> None:
        self._consent = consent

    @property
    def records(self) -> ReminderConsent:
        """The answers and block lists behind the buttons (for /remind unblock)."""
        return self._consent

    async def click(
        self, reminder_id: int, user_id: int, action: str, language: Language = "ja"
    ) -> ConsentReply:
        """Apply the member's answer; anyone else, or a request already closed, is refused."""
        try:
            if action == ACCEPT:
                view = await self._consent.accept(reminder_id, user_id)
                when = moment(view.due_at)
                return ConsentReply(
                    True,
                    replies.CONSENT_ACCEPTED(language, when=when),
                    replies.STAMP_ACCEPTED(language),
                )
            if action == DECLINE:
                await self._consent.decline(reminder_id, user_id)
                return ConsentReply(
                    True, replies.CONSENT_DECLINED(language), replies.STAMP_DECLINED(language)
                )
            count = await self._consent.block(reminder_id, user_id)
            return ConsentReply(
                True,
                replies.CONSENT_BLOCKED(language, count=count),
                replies.STAMP_BLOCKED(language),
            )
        except NotReminderOwner:
            return ConsentReply(False, replies.NOT_CONSENT_TARGET(language))
        except ReminderNotFound:
            return ConsentReply(False, replies.REMINDER_GONE(language))
        except ReminderClosed:
            return ConsentReply(False, replies.CONSENT_CLOSED(language))
