"""Renders one agent run in a channel: streamed text (edited at most once a second) and cards."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.agent import events as ev
from bot.discord_ui.buttons import approval_view, stop_view
from bot.discord_ui.cards import CardState, ToolCard
from bot.discord_ui.splitting import split_message

log = logging.getLogger(__name__)

# Discord allows ~5 edits per 5 s per channel; one edit a second leaves room for cards.
EDIT_INTERVAL_SECONDS = 1.0
# Leave room below 2,000 for the "…" cursor shown while streaming.
STREAM_CHUNK_LIMIT = 1990

_REJECTION_STATE = {
    "rejected": CardState.REJECTED,
    "timed_out": CardState.EXPIRED,
    "interrupted": CardState.INTERRUPTED,
    "invalidated": CardState.INVALIDATED,
}

# The line after a run that ended without its tool running; each way of ending has its own.
_CLOSING_LINES: dict[str, str] = {
    "rejected": "-# 了解です。実行しませんでした。/ OK, I did not run it.",
    "expired": "-# ⌛ 承認の期限が切れたので、実行しませんでした。/ The approval expired, so I did "
    "not run it.",
    "interrupted": "-# ⏹️ 停止しました / stopped",
}

FAILURE_PREFIX = "ごめんなさい、うまく答えられませんでした。/ Sorry, I couldn't answer: "


class DeliveryBroken(Exception):
    """The channel refused our messages (deleted, or we lost permission)."""


@dataclass
class _Segment:
    """Consecutive streamed text, shown in one or more messages."""

    text: str = ""
    messages: list[discord.Message] = field(default_factory=list)
    shown: list[str] = field(default_factory=list)


@dataclass
class _Card:
    card: ToolCard
    message: discord.Message | discord.PartialMessage | None = None


class RunRenderer:
    """Turns a stream of agent events into Discord messages, edits and cards."""

    def __init__(
        self,
        channel: discord.abc.Messageable,
        *,
        requester_id: int,
        run_id: str | None,
        reply_to: discord.Message | None = None,
        attach_card: Callable[[int, int], Awaitable[None]] | None = None,
        existing_cards: dict[str, tuple[ToolCard, discord.PartialMessage]] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.channel = channel
        self.requester_id = requester_id
        self.run_id = run_id
        self.reply_to = reply_to
        self._attach_card = attach_card
        self._clock = clock
        self._segment = _Segment()
        self._last_edit = float("-inf")
        self._cards: dict[str, _Card] = {
            call_id: _Card(card, message)
            for call_id, (card, message) in (existing_cards or {}).items()
        }
        self._stop_host: discord.Message | None = None
        self.posted: list[discord.Message] = []
        self.broken = False

    @property
    def mentions(self) -> discord.AllowedMentions:
        """Only the requester can ever be pinged by what we send."""
        return discord.AllowedMentions(
            everyone=False,
            roles=False,
            users=[discord.Object(self.requester_id)],
            replied_user=False,
        )

    async def consume(self, events: AsyncIterator[ev.AgentEvent]) -> ev.AgentEvent | None:
        """Render every event; return the last one (Done or Failed)."""
        last: ev.AgentEvent | None = None
        try:
            async for event in events:
                last = event
                await self.render(event)
        except asyncio.CancelledError:
            # Shutting down: leave the messages (and any approval buttons) as they are.
            raise
        except BaseException:
            await self._remove_stop_button()
            raise
        await self._remove_stop_button()
        return last

    async def render(self, event: ev.AgentEvent) -> None:
        """Apply one event to the channel."""
        match event:
            case ev.TextDelta(text=text):
                self._segment.text += text
                if self._clock() - self._last_edit >= EDIT_INTERVAL_SECONDS:
                    await self._flush(final=False)
            case ev.ToolCallStarted(call_id=call_id, name=name):
                await self._end_segment()
                await self._show_card(call_id, ToolCard(name=name))
            case ev.ApprovalRequired():
                card = self._card_for(event.call_id, event.name)
                card.state = CardState.NEEDS_APPROVAL
                card.arguments = event.arguments
                card.requester_id = event.requester_id
                card.expires_at = event.expires_at
                card.approval_id = event.approval_id
                card.source = event.source
                await self._end_segment()
                entry = self._cards.get(event.call_id)
                message = entry.message if entry is not None else None
                if message is None:
                    message = await self._show_card(event.call_id, card)
                # Store the card's id before it gets buttons, so a click that reaches a
                # restarted bot always finds the card it must update.
                if message is not None and self._attach_card is not None:
                    await self._attach_card(event.approval_id, message.id)
                await self._show_card(event.call_id, card, view=approval_view(event.approval_id))
            case ev.ToolExecuting():
                card = self._card_for(event.call_id, event.name)
                card.state = CardState.RUNNING
                card.arguments = event.arguments
                await self._show_card(event.call_id, card, view=None)
            case ev.ToolResult():
                card = self._card_for(event.call_id, event.name)
                card.state = CardState.FAILED if event.is_error else CardState.DONE
                card.result = event.output
                if event.arguments is not None:
                    card.arguments = event.arguments
                await self._show_card(event.call_id, card, view=None)
            case ev.ToolRejected():
                card = self._card_for(event.call_id, event.name)
                card.state = _REJECTION_STATE[event.reason]
                card.detail = event.detail
                if event.arguments is not None:
                    card.arguments = event.arguments
                await self._show_card(event.call_id, card, view=None)
            case ev.RoundEnd():
                await self._end_segment()
            case ev.Notice(text=text):
                await self._end_segment()
                await self._send("\n".join(f"-# {line}" for line in text.splitlines()))
            case ev.Done(reason=reason):
                await self._end_segment()
                closing = _CLOSING_LINES.get(reason)
                if closing:
                    await self._send(closing)
            case ev.Failed(message=message):
                await self._end_segment()
                await self._send(FAILURE_PREFIX + message)

    # -- text ----------------------------------------------------------------------------

    async def _end_segment(self) -> None:
        if self._segment.text:
            await self._flush(final=True)
        self._segment = _Segment()

    async def _flush(self, *, final: bool) -> None:
        """Show the segment's text: earlier chunks are final, the last one may still grow."""
        segment = self._segment
        chunks = split_message(segment.text, STREAM_CHUNK_LIMIT) if segment.text.strip() else []
        for index, chunk in enumerate(chunks):
            shown = chunk if final or index < len(chunks) - 1 else chunk + " …"
            if index < len(segment.messages):
                if segment.shown[index] != shown:
                    await self._guard(
                        segment.messages[index].edit(content=shown, allowed_mentions=self.mentions)
                    )
                    segment.shown[index] = shown
            else:
                message = await self._send(shown)
                if message is None:
                    return
                segment.messages.append(message)
                segment.shown.append(shown)
        self._last_edit = self._clock()

    async def _send(self, content: str, **kwargs: Any) -> discord.Message | None:
        """Post a message; the first one replies to the user and carries the Stop button."""
        if self.broken:
            return None
        first = not self.posted
        if first and self.run_id and "view" not in kwargs:
            kwargs["view"] = stop_view(self.run_id)
        if first and self.reply_to is not None:
            kwargs["reference"] = self.reply_to.to_reference(fail_if_not_exists=False)
        message: discord.Message | None = await self._guard(
            self.channel.send(content=content, allowed_mentions=self.mentions, **kwargs)
        )
        if message is not None:
            self.posted.append(message)
            if first and self.run_id:
                self._stop_host = message
        return message

    # -- cards ---------------------------------------------------------------------------

    def _card_for(self, call_id: str, name: str) -> ToolCard:
        entry = self._cards.get(call_id)
        if entry is None:
            entry = self._cards[call_id] = _Card(ToolCard(name=name))
        return entry.card

    async def _show_card(
        self, call_id: str, card: ToolCard, *, view: discord.ui.View | None = None
    ) -> discord.Message | discord.PartialMessage | None:
        entry = self._cards.setdefault(call_id, _Card(card))
        entry.card = card
        if entry.message is None:
            if view is None and not self.posted and self.run_id:
                view = stop_view(self.run_id)
            sent = await self._send("", embed=card.render(), view=view or discord.utils.MISSING)
            entry.message = sent
            return sent
        target = entry.message
        if target is self._stop_host and view is None and self.run_id:
            view = stop_view(self.run_id)
        edited = await self._guard(target.edit(embed=card.render(), view=view))
        return target if edited is not None else None

    async def _remove_stop_button(self) -> None:
        host = self._stop_host
        self._stop_host = None
        if host is None or self.broken:
            return
        if any(
            entry.message is host and entry.card.state == CardState.NEEDS_APPROVAL
            for entry in self._cards.values()
        ):
            # The card already shows only its approval buttons, which must outlive the run.
            return
        await self._guard(host.edit(view=None))

    async def _guard(self, action: Awaitable[Any]) -> Any:
        """Await a Discord call; a missing channel or permission ends rendering, not the bot."""
        if self.broken:
            if hasattr(action, "close"):
                action.close()
            return None
        try:
            return await action
        except (discord.Forbidden, discord.NotFound) as exc:
            self.broken = True
            log.warning(
                "Cannot post in channel %s any more (%s %s); stopping this answer",
                getattr(self.channel, "id", "?"),
                exc.status,
                exc.text,
            )
            raise DeliveryBroken(str(exc)) from exc
