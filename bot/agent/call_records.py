"""What is known about each tool call outside the conversation: where its card is shown, and
whether it started running, so a process that stopped mid-call is recovered truthfully.

Cards are recorded by the process that posts them and marked when they reach a final state;
a tool run is recorded just before the tool starts and finished once its result is in the
history. After a crash (or when a run's lease runs out) what was left open is found here.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import false, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.storage.agent import ToolCardMessage, ToolRun

log = logging.getLogger(__name__)

# Past a tool's own timeout, how long a run may still be recording its result.
RUN_LEASE_MARGIN = timedelta(seconds=60)
# A card older than this without a final state belongs to no live run anywhere: model rounds
# and tools (300 s at most) end long before, and a card waiting for a click has its approval.
OPEN_CARD_GRACE = timedelta(minutes=15)
# Older calls are not recovered any more: the member has long moved on.
RECOVERABLE_FOR = timedelta(days=1)


@dataclass(frozen=True)
class CardPlace:
    """The message that shows a call's card."""

    tool_name: str
    channel_id: int
    message_id: int


@dataclass(frozen=True)
class OpenCall:
    """A call left open: its card never reached a final state, or its tool run never ended."""

    conversation_key: str
    call_id: str
    tool_name: str
    channel_id: int
    message_id: int | None
    # The tool started running (its outcome is unknown), rather than never running.
    started: bool


def incarnation_of(executor: str) -> tuple[str, str]:
    """(identity, incarnation) of an executor name `identity/incarnation`."""
    identity, _, incarnation = executor.rpartition("/")
    return identity, incarnation


class CallRecords:
    """The `tool_card_messages` and `tool_runs` rows."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], executor: str) -> None:
        self._sessions = sessions
        # This process: its stable identity (its shards) and this incarnation of it.
        self.executor = executor

    # -- cards ---------------------------------------------------------------------------

    async def record_card(
        self, conversation_key: str, call_id: str, place: CardPlace, at: datetime
    ) -> None:
        """Remember where the call's card is; a second record of the same call is ignored."""
        try:
            async with self._sessions() as session, session.begin():
                session.add(
                    ToolCardMessage(
                        conversation_key=conversation_key,
                        call_id=call_id,
                        tool_name=place.tool_name,
                        channel_id=place.channel_id,
                        message_id=place.message_id,
                        created_at=at,
                        executor=self.executor,
                    )
                )
        except IntegrityError:
            log.info("Card of call %s was already recorded", call_id)

    async def find_card(self, conversation_key: str, call_id: str) -> CardPlace | None:
        """Where the call's card is, if any process recorded it."""
        async with self._sessions() as session:
            row = await session.scalar(
                select(ToolCardMessage).where(
                    ToolCardMessage.conversation_key == conversation_key,
                    ToolCardMessage.call_id == call_id,
                )
            )
        return CardPlace(row.tool_name, row.channel_id, row.message_id) if row else None

    async def card_final(self, conversation_key: str, call_id: str, at: datetime) -> None:
        """The card reached a final state: nothing is left to recover about it."""
        async with self._sessions() as session, session.begin():
            await session.execute(
                update(ToolCardMessage)
                .where(
                    ToolCardMessage.conversation_key == conversation_key,
                    ToolCardMessage.call_id == call_id,
                    ToolCardMessage.final_at.is_(None),
                )
                .values(final_at=at)
            )

    # -- tool runs -----------------------------------------------------------------------

    async def started(
        self,
        conversation_key: str,
        call_id: str,
        tool_name: str,
        channel_id: int,
        at: datetime,
        timeout_seconds: float,
    ) -> None:
        """The tool is about to run here; its lease covers its timeout and a margin."""
        lease_until = at + timedelta(seconds=timeout_seconds) + RUN_LEASE_MARGIN
        try:
            async with self._sessions() as session, session.begin():
                session.add(
                    ToolRun(
                        conversation_key=conversation_key,
                        call_id=call_id,
                        tool_name=tool_name,
                        channel_id=channel_id,
                        executor=self.executor,
                        started_at=at,
                        lease_until=lease_until,
                    )
                )
        except IntegrityError:
            log.info("Run of call %s was already recorded", call_id)

    async def finished(self, conversation_key: str, call_id: str, at: datetime) -> None:
        """The call's result (or its interruption) is in the history."""
        async with self._sessions() as session, session.begin():
            await session.execute(
                update(ToolRun)
                .where(
                    ToolRun.conversation_key == conversation_key,
                    ToolRun.call_id == call_id,
                    ToolRun.finished_at.is_(None),
                )
                .values(finished_at=at)
            )

    async def started_calls(self, conversation_key: str, call_ids: list[str]) -> set[str]:
        """Which of these calls started running and never finished."""
        if not call_ids:
            return set()
        async with self._sessions() as session:
            rows = await session.scalars(
                select(ToolRun.call_id).where(
                    ToolRun.conversation_key == conversation_key,
                    ToolRun.call_id.in_(call_ids),
                    ToolRun.finished_at.is_(None),
                )
            )
            return set(rows.all())

    # -- after a crash -------------------------------------------------------------------

    async def left_open(self, now: datetime, *, everyone: bool) -> list[OpenCall]:
        """Calls a stopped process left open: those of earlier incarnations of this process
        (at start), and with everyone, any whose lease or grace ran out (the sweep)."""
        identity, _ = incarnation_of(self.executor)
        mine = f"{identity}/%"
        found: dict[tuple[str, str], OpenCall] = {}
        async with self._sessions() as session:
            run_rows = await session.scalars(
                select(ToolRun).where(
                    ToolRun.finished_at.is_(None),
                    or_(
                        ToolRun.executor.like(mine) & (ToolRun.executor != self.executor),
                        ToolRun.lease_until < now if everyone else false(),
                    ),
                )
            )
            for run in run_rows.all():
                found[(run.conversation_key, run.call_id)] = OpenCall(
                    run.conversation_key, run.call_id, run.tool_name, run.channel_id, None, True
                )
            card_rows = await session.scalars(
                select(ToolCardMessage).where(
                    ToolCardMessage.final_at.is_(None),
                    # Cards from before these records (no executor) are left as they are.
                    ToolCardMessage.executor.is_not(None),
                    ToolCardMessage.created_at > now - RECOVERABLE_FOR,
                    or_(
                        ToolCardMessage.executor.like(mine)
                        & (ToolCardMessage.executor != self.executor),
                        ToolCardMessage.created_at < now - OPEN_CARD_GRACE if everyone else false(),
                    ),
                )
            )
            for card in card_rows.all():
                key = (card.conversation_key, card.call_id)
                started = key in found
                found[key] = OpenCall(
                    card.conversation_key,
                    card.call_id,
                    card.tool_name,
                    card.channel_id,
                    card.message_id,
                    started,
                )
        return list(found.values())
