"""Conversation history persisted per conversation, bounded, with background summaries."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.agent.conversation import messages as m
from bot.runtime.clock import Clock
from bot.storage.agent import ConversationMessage

log = logging.getLogger(__name__)

SUMMARY_INSTRUCTIONS = (
    "Summarise the conversation below for your own later reference, in the language it was "
    "held in. Keep names, decisions, dates and times, reminders created or cancelled, and open "
    "questions; drop greetings and small talk. At most 12 short lines."
)

Summarize = Callable[[list[dict[str, object]], str], Awaitable[str]]


@dataclass(frozen=True)
class StoredMessage:
    """A message with its row id."""

    id: int
    message: m.Message


def conversation_key(channel_id: int, user_id: int) -> str:
    """One conversation per member per channel (a thread or DM is a channel too)."""
    return f"c{channel_id}:u{user_id}"


def asked_conversation_key(channel_id: int, user_id: int, ask_id: int) -> str:
    """A private question about a message in a channel: a conversation of its own, kept apart
    from the member's conversation there (a private answer never becomes public history), yet
    the member's own in that channel when they ask Otomo to forget."""
    return f"{conversation_key(channel_id, user_id)}:ask{ask_id}"


def shared_conversation_key(channel_id: int) -> str:
    """One conversation for everyone in a thread the bot opened: each member a speaker in it."""
    return f"c{channel_id}:all"


class ConversationStore:
    """Appends typed messages and reads the bounded context window of a conversation."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        max_messages: int = 30,
    ) -> None:
        self._sessions = sessions
        self._clock = clock
        self.max_messages = max_messages
        self._summarising: dict[str, asyncio.Task[None]] = {}

    async def append(self, key: str, *items: m.Message) -> list[int]:
        """Persist messages in order; return their ids."""
        rows = [
            ConversationMessage(
                conversation_key=key,
                kind=item.kind,
                payload=m.dump(item),
                exclude_from_context=item.exclude_from_context,
                created_at=self._clock.now(),
            )
            for item in items
        ]
        async with self._sessions() as session, session.begin():
            session.add_all(rows)
            await session.flush()
            return [row.id for row in rows]

    async def all(self, key: str) -> list[StoredMessage]:
        """Every stored message of the conversation, oldest first (for tests and export)."""
        async with self._sessions() as session:
            rows = (
                await session.scalars(
                    select(ConversationMessage)
                    .where(ConversationMessage.conversation_key == key)
                    .order_by(ConversationMessage.id)
                )
            ).all()
        return [StoredMessage(row.id, m.load(row.payload)) for row in rows]

    async def context(self, key: str) -> list[m.Message]:
        """The latest summary plus the newest in-context messages, at most max_messages."""
        async with self._sessions() as session:
            rows = (
                await session.scalars(
                    select(ConversationMessage)
                    .where(
                        ConversationMessage.conversation_key == key,
                        ConversationMessage.exclude_from_context.is_(False),
                    )
                    .order_by(ConversationMessage.id.desc())
                    .limit(self.max_messages)
                )
            ).all()
        return _context_of([m.load(row.payload) for row in reversed(rows)])

    async def tail(self, key: str) -> list[StoredMessage]:
        """Messages after the last user message (the turn being worked on), oldest first."""
        return (await self.recent(key)).tail

    async def recent(self, key: str) -> Recent:
        """The conversation's newest rows, read once: the turn being worked on and (when the
        rows tell) the context window, so a new message needs one read before the model."""
        limit = self.max_messages * 2
        async with self._sessions() as session:
            rows = (
                await session.scalars(
                    select(ConversationMessage)
                    .where(ConversationMessage.conversation_key == key)
                    .order_by(ConversationMessage.id.desc())
                    .limit(limit)
                )
            ).all()
        tail: list[StoredMessage] = []
        for row in rows:
            if row.kind == "user":
                break
            tail.append(StoredMessage(row.id, m.load(row.payload)))
        shown = [m.load(row.payload) for row in reversed(rows) if not row.exclude_from_context]
        window = shown[-self.max_messages :]
        # Every row was read, or the newest max_messages in-context ones are among those read.
        complete = len(rows) < limit or len(window) == self.max_messages
        return Recent(list(reversed(tail)), window if complete else None, self.max_messages)

    def summarise_in_background(self, key: str, summarize: Summarize) -> None:
        """Fold old turns into a summary without delaying the reply; one task per conversation."""
        running = self._summarising.get(key)
        if running is not None and not running.done():
            return
        task = asyncio.create_task(self._summarise(key, summarize), name=f"summarise {key}")
        self._summarising[key] = task
        # A finished summary leaves the map: one entry per conversation ever would only grow.
        task.add_done_callback(lambda done: self._forget_summary(key, done))

    def _forget_summary(self, key: str, task: asyncio.Task[None]) -> None:
        if self._summarising.get(key) is task:
            del self._summarising[key]

    async def wait_for_summaries(self) -> None:
        """Wait for background summaries (used at shutdown and by tests)."""
        tasks = [t for t in self._summarising.values() if not t.done()]
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _summarise(self, key: str, summarize: Summarize) -> None:
        try:
            await self._summarise_now(key, summarize)
        except Exception:
            log.exception("Could not summarise conversation %s; older turns stay as they are", key)

    async def _summarise_now(self, key: str, summarize: Summarize) -> None:
        async with self._sessions() as session:
            stored = (
                await session.scalars(
                    select(ConversationMessage)
                    .where(
                        ConversationMessage.conversation_key == key,
                        ConversationMessage.exclude_from_context.is_(False),
                    )
                    .order_by(ConversationMessage.id)
                )
            ).all()
        if len(stored) <= self.max_messages:
            return
        # In conversation order: an earlier summary stands where the turns it covers were,
        # before the turns kept after it (it was written after them, so its id is larger).
        loaded = sorted(
            ((row, m.load(row.payload)) for row in stored),
            key=lambda pair: _position(pair[0].id, pair[1]),
        )
        keep = self.max_messages // 2
        # Cut at a user message so a tool call is never separated from its result.
        cut = len(loaded) - keep
        while cut < len(loaded) and not isinstance(loaded[cut][1], m.UserMessage):
            cut += 1
        if cut >= len(loaded):
            return
        old = [message for _, message in loaded[:cut]]
        folded_ids = [row.id for row, _ in loaded[:cut]]
        covers_until = max(
            (row.id for row, message in loaded[:cut] if not isinstance(message, m.SummaryMessage)),
            default=0,
        )
        summary_text = await summarize(m.to_llm(old), SUMMARY_INSTRUCTIONS)
        try:
            await self._fold(key, folded_ids, summary_text, covers_until)
        except _AlreadyGone:
            # The member had Otomo forget these turns meanwhile (or another summary folded
            # them): keep no summary of them.
            return

    async def _fold(
        self, key: str, folded_ids: list[int], summary_text: str, covers_until: int
    ) -> None:
        """Take the folded messages out of the context and add their summary, at once."""
        async with self._sessions() as session, session.begin():
            folded = await session.execute(
                update(ConversationMessage)
                .where(
                    ConversationMessage.conversation_key == key,
                    ConversationMessage.id.in_(folded_ids),
                    ConversationMessage.exclude_from_context.is_(False),
                )
                .values(exclude_from_context=True)
            )
            if getattr(folded, "rowcount", len(folded_ids)) != len(folded_ids):
                raise _AlreadyGone
            session.add(
                ConversationMessage(
                    conversation_key=key,
                    kind="summary",
                    payload=m.dump(
                        m.SummaryMessage(text=summary_text.strip(), covers_until=covers_until)
                    ),
                    exclude_from_context=False,
                    created_at=self._clock.now(),
                )
            )


class _AlreadyGone(Exception):
    """Some messages to fold were deleted or folded since they were read."""


def _position(row_id: int, message: m.Message) -> float:
    """Where a stored message belongs in the conversation: a summary right after what it
    covers, everything else where it was written."""
    if isinstance(message, m.SummaryMessage) and message.covers_until:
        return message.covers_until + 0.5
    return row_id


@dataclass(frozen=True)
class Recent:
    """A conversation's newest rows, read once (see ConversationStore.recent)."""

    # Messages after the last user message (the turn being worked on), oldest first.
    tail: list[StoredMessage]
    # The newest in-context messages, oldest first; None when the rows read cannot tell
    # (many excluded ones): ConversationStore.context reads it then.
    window: list[m.Message] | None
    max_messages: int

    def context_after(self, *added: m.Message) -> list[m.Message] | None:
        """What ConversationStore.context returns once added are appended (None: read it)."""
        if self.window is None:
            return None
        kept = [*self.window, *(x for x in added if not x.exclude_from_context)]
        return _context_of(kept[-self.max_messages :])


def _context_of(loaded: Sequence[m.Message]) -> list[m.Message]:
    """The latest summary, then the rest from the first user message on."""
    summaries = [x for x in loaded if isinstance(x, m.SummaryMessage)]
    rest = [x for x in loaded if not isinstance(x, m.SummaryMessage)]
    return ([summaries[-1]] if summaries else []) + _start_at_turn(rest)


def _start_at_turn(items: Sequence[m.Message]) -> list[m.Message]:
    """Drop leading messages until the first user message, so the window starts cleanly."""
    for index, item in enumerate(items):
        if isinstance(item, m.UserMessage):
            return list(items[index:])
    return list(items)


def unanswered_in(tail: list[StoredMessage]) -> list[m.ToolCall]:
    """The calls of the turn's last assistant message that have no result or rejection yet."""
    calls: list[m.ToolCall] = []
    answered: set[str] = set()
    for stored in tail:
        message = stored.message
        if isinstance(message, m.AssistantMessage) and message.tool_calls:
            calls = list(message.tool_calls)
            answered = set()
        elif isinstance(message, (m.ToolResultMessage, m.ToolRejectedMessage)):
            answered.add(message.call_id)
    return [c for c in calls if c.id not in answered]
