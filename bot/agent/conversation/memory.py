"""What Otomo keeps about a member's conversations, and forgetting it when they ask."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, delete, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.agent.approvals.service import ApprovalService, Status
from bot.agent.conversation import messages as m
from bot.agent.conversation.history import conversation_key
from bot.storage.agent import ApprovalRequest, ConversationMessage, LLMCall
from bot.storage.engine import write_sessions


@dataclass(frozen=True, slots=True)
class MemoryReport:
    """What is stored for one member in one channel."""

    messages: int
    their_messages: int
    first_at: datetime | None
    last_at: datetime | None
    summary: str | None
    summary_at: datetime | None
    # Other channels and DMs where something is kept for the member.
    elsewhere: int = 0


@dataclass(frozen=True, slots=True)
class ForgetReport:
    """What a forget request deleted, and the approvals still waiting that it cancelled (as
    they were, so their cards can say so)."""

    messages: int
    conversations: int
    cancelled: tuple[ApprovalRequest, ...] = ()


def _keys_of(column: Any, user_id: int, channel_id: int | None) -> ColumnElement[bool]:
    """The member's conversation in one channel, or in every channel (keys end in `:u<id>`),
    with their private questions about messages there (`:u<id>:ask<n>`)."""
    if channel_id is not None:
        key = conversation_key(channel_id, user_id)
        return or_(column == key, column.like(f"{key}:ask%"))
    return or_(column.like(f"c%:u{user_id}"), column.like(f"c%:u{user_id}:ask%"))


class ConversationMemory:
    """Reads and deletes a member's stored conversations (history and summaries)."""

    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], approvals: ApprovalService
    ) -> None:
        self._sessions = sessions
        # It reads before it writes: on SQLite the write lock is taken at BEGIN, or the
        # upgrade from reading would fail at once while another writer holds the lock.
        self._writes = write_sessions(sessions)
        self._approvals = approvals

    async def report(self, user_id: int, channel_id: int) -> MemoryReport:
        """Message counts, the time span and the latest summary of the member's conversation."""
        key = conversation_key(channel_id, user_id)
        table = ConversationMessage
        async with self._sessions() as session:
            total, first, last = (
                await session.execute(
                    select(func.count(), func.min(table.created_at), func.max(table.created_at))
                    .select_from(table)
                    .where(table.conversation_key == key)
                )
            ).one()
            theirs = await session.scalar(
                select(func.count())
                .select_from(table)
                .where(table.conversation_key == key, table.kind == "user")
            )
            summary_row = await session.scalar(
                select(table)
                .where(table.conversation_key == key, table.kind == "summary")
                .order_by(table.id.desc())
                .limit(1)
            )
            keys = await session.scalar(
                select(func.count(table.conversation_key.distinct())).where(
                    _keys_of(table.conversation_key, user_id, None), table.conversation_key != key
                )
            )
        summary = None
        if summary_row is not None:
            loaded = m.load(summary_row.payload)
            summary = loaded.text if isinstance(loaded, m.SummaryMessage) else None
        return MemoryReport(
            messages=total or 0,
            their_messages=theirs or 0,
            first_at=_aware(first),
            last_at=_aware(last),
            summary=summary,
            summary_at=summary_row.created_at if summary_row is not None else None,
            elsewhere=keys or 0,
        )

    async def forget(self, user_id: int, channel_id: int | None = None) -> ForgetReport:
        """Delete the member's history and summaries in one channel, or everywhere.

        Decided approval requests of those conversations (they hold the tool arguments) go too,
        and logged prompts of their model calls are blanked. A card still waiting is cancelled,
        its arguments blanked: with the history gone there is nothing to resume.
        """
        pending = ApprovalRequest.status == Status.PENDING.value
        async with self._sessions() as session:
            rows = (
                await session.scalars(
                    select(ApprovalRequest).where(
                        _keys_of(ApprovalRequest.conversation_key, user_id, channel_id), pending
                    )
                )
            ).all()
        waiting = [row.id for row in rows]
        # Cancelled here, not by a click or the sweep meanwhile: this forget ends their cards.
        cancelled = tuple([row for row in rows if await self._approvals.invalidate(row.id)])
        async with self._writes() as session, session.begin():
            keys = (
                await session.scalars(
                    select(ConversationMessage.conversation_key)
                    .where(_keys_of(ConversationMessage.conversation_key, user_id, channel_id))
                    .distinct()
                )
            ).all()
            deleted = await session.execute(
                delete(ConversationMessage).where(
                    _keys_of(ConversationMessage.conversation_key, user_id, channel_id)
                )
            )
            await session.execute(
                delete(ApprovalRequest).where(
                    _keys_of(ApprovalRequest.conversation_key, user_id, channel_id),
                    ApprovalRequest.id.not_in(waiting),
                )
            )
            if waiting:
                await session.execute(
                    update(ApprovalRequest)
                    .where(ApprovalRequest.id.in_(waiting))
                    .values(arguments="{}")
                )
            await session.execute(
                update(LLMCall)
                .where(_keys_of(LLMCall.conversation_key, user_id, channel_id))
                .values(prompt=None, response=None)
            )
        return ForgetReport(
            messages=int(getattr(deleted, "rowcount", 0) or 0),
            conversations=len(keys),
            cancelled=cancelled,
        )


def _aware(value: datetime | None) -> datetime | None:
    """Aggregates bypass the UTC column type on SQLite: give them their zone back."""
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=UTC)
