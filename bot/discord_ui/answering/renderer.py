"""Renders one agent run in a channel: streamed text (edited at most once a second) and cards."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import unicodedata
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from zoneinfo import ZoneInfo

import discord

from bot.agent import events as ev
from bot.agent.conversation.messages import RejectionReason
from bot.agent.tools import Tool
from bot.discord_ui.answering.splitting import split_message
from bot.discord_ui.cards.embed import REJECTION_STATE, CardState, ToolCard, dressed
from bot.discord_ui.cards.owner import CardKey, CardOwner
from bot.discord_ui.persistent_buttons import stop_view
from bot.discord_ui.sends import only, sent
from bot.i18n import Language, Text, answers
from bot.runtime.send_failures import SendError

log = logging.getLogger(__name__)

# Discord allows ~5 edits per 5 s per channel; one edit a second leaves room for cards.
EDIT_INTERVAL_SECONDS = 1.0
# A reply's first message waits this long for more text (the typing indicator is on meanwhile):
# a reply complete by then is one post, without a cursor or Stop to take away by edits.
FIRST_POST_SECONDS = EDIT_INTERVAL_SECONDS
# Leave room below 2,000 for the "…" cursor shown while streaming.
STREAM_CHUNK_LIMIT = 1990

# Why a call that never ran was cancelled, on its card.
_NOT_RUN_BECAUSE: dict[RejectionReason, Text] = {
    "after_rejection": answers.AFTER_REJECTION,
    "after_expiry": answers.AFTER_EXPIRY,
    "after_stop": answers.AFTER_STOP,
    "after_shutdown": answers.AFTER_SHUTDOWN,
}

# The line after a run that ended without its tool running; each way of ending has its own.
_CLOSING_LINES: dict[str, Text] = {
    "rejected": answers.CLOSING_REJECTED,
    "expired": answers.CLOSING_EXPIRED,
    "interrupted": answers.CLOSING_INTERRUPTED,
    "changed": answers.CLOSING_CHANGED,
    "shutdown": answers.CLOSING_SHUTDOWN,
}


def has_words(text: str) -> bool:
    """Whether text holds anything to read: a model sometimes writes stray fragments around a
    tool call ("{" before it, "}}" after it), and those alone are not worth a message. Letters,
    digits and symbols (emoji included) count; punctuation, brackets and spaces do not."""
    return any(not unicodedata.category(c).startswith(("P", "Z", "C")) for c in text)


def _given(**values: Any) -> dict[str, Any]:
    """Only the values an event carries (None means the event does not know)."""
    return {k: v for k, v in values.items() if v is not None}


@dataclass
class _Segment:
    """Consecutive streamed text, shown in one or more messages."""

    text: str = ""
    messages: list[discord.Message] = field(default_factory=list)
    shown: list[str] = field(default_factory=list)
    # When its first text arrived (the renderer's clock), for FIRST_POST_SECONDS.
    began: float | None = None


class RunRenderer:
    """Turns a stream of agent events into Discord messages, edits and cards."""

    def __init__(
        self,
        channel: discord.abc.Messageable,
        *,
        requester_id: int,
        run_id: str | None,
        cards: CardOwner | None = None,
        conversation_key: str = "",
        reply_to: discord.Message | None = None,
        attach_card: Callable[[int, int], Awaitable[None]] | None = None,
        clock: Callable[[], float] = time.monotonic,
        describe: Callable[[str], Tool | None] | None = None,
        language: Language = "ja",
        timezone: ZoneInfo | None = None,
        before_first_post: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.channel = channel
        # Awaited before this run's first message (the typing request that overlapped the run).
        self._before_first_post = before_first_post
        self.requester_id = requester_id
        self.run_id = run_id
        self.reply_to = reply_to
        # The language the member wrote in: every sentence this run adds is in it.
        self.language = language
        self.conversation_key = conversation_key
        self._owner = cards
        self._attach_card = attach_card
        self._clock = clock
        self._describe = describe
        self.timezone = timezone
        self._segment = _Segment()
        # Text of a finished model round not posted yet: posted with Stop if the run goes on,
        # without it if the run ends (see _post_held).
        self._held: _Segment | None = None
        # One event at a time: the timer that posts text held too long draws between events.
        self._drawing = asyncio.Lock()
        self._post_timer: asyncio.TimerHandle | None = None
        self._timer_tasks: set[asyncio.Task[None]] = set()
        self._last_edit = float("-inf")
        # The cards this run touched, in order; the owner holds their state and messages.
        self._cards: dict[str, CardKey] = {}
        self._stop_host: discord.Message | None = None
        self._stop_card: CardKey | None = None
        self.posted: list[discord.Message] = []
        self.broken = False

    @property
    def mentions(self) -> discord.AllowedMentions:
        """Only the requester can ever be pinged by what we send."""
        return only(self.requester_id)

    async def consume(self, events: AsyncIterator[ev.AgentEvent]) -> ev.AgentEvent | None:
        """Render every event; return the last one (Done or Failed)."""
        last: ev.AgentEvent | None = None
        try:
            async for event in events:
                last = event
                async with self._drawing:
                    await self.render(event)
        except asyncio.CancelledError:
            # Shutting down: leave the messages (and any approval buttons) as they are.
            raise
        except BaseException:
            async with self._drawing:
                self._cancel_post_timer()
                with contextlib.suppress(SendError):  # the error being raised says more
                    await self._post_held(closing=True)
                await self._finish_cards(CardState.FAILED, answers.BROKE_OFF(self.language))
                await self._remove_stop_button()
            raise
        finally:
            self._cancel_post_timer()
        async with self._drawing:
            await self._post_held(closing=True)
            await self._remove_stop_button()
        return last

    async def render(self, event: ev.AgentEvent) -> None:
        """Apply one event to the channel."""
        if isinstance(event, ev.Done | ev.Failed):
            if not self._segment.messages:
                # The run's last text, never shown yet: one post, nothing to edit away.
                self._hold_segment()
            await self._post_held(closing=True)
        elif self._held is not None:
            await self._post_held(closing=False)
        match event:
            case ev.TextDelta(text=text):
                segment = self._segment
                segment.text += text
                if segment.began is None:
                    segment.began = self._clock()
                if segment.messages:
                    if self._clock() - self._last_edit >= EDIT_INTERVAL_SECONDS:
                        await self._flush(final=False)
                elif self._clock() - segment.began >= FIRST_POST_SECONDS:
                    await self._flush(final=False)
                else:
                    self._arm_post_timer(segment)
            case ev.ToolCallStarted():
                # No card yet: a call that turns out invalid goes back to the model unseen;
                # its card appears when it waits for approval or runs.
                await self._end_segment()
            case ev.ApprovalRequired():
                await self._end_segment()
                key = self._key(event.call_id)
                message_id = await self._card_message(event.call_id, event.name)
                # Store the card's id before it gets buttons, so a click that reaches a
                # restarted bot always finds the card it must update.
                if message_id is not None and self._attach_card is not None:
                    await self._attach_card(event.approval_id, message_id)
                await self._move(
                    key,
                    event.name,
                    CardState.NEEDS_APPROVAL,
                    arguments=event.arguments,
                    requester_id=event.requester_id,
                    expires_at=event.expires_at,
                    approval_id=event.approval_id,
                    source=event.source,
                    batch=[self.new_card(name).gist(arguments) for name, arguments in event.batch],
                    details=[(w.form(self.language), v) for w, v in event.details],
                    **_given(
                        because=answers.asked_after(event.because, self.language)
                        if event.because
                        else None
                    ),
                )
            case ev.ToolExecuting():
                key = self._key(event.call_id)
                await self._move(
                    key,
                    event.name,
                    CardState.RUNNING,
                    arguments=event.arguments,
                    stop_run=self._stop_for(key),
                    edited=event.edited,
                    **_given(decided_by=event.decided_by),
                )
            case ev.ToolResult():
                await self._move(
                    self._key(event.call_id),
                    event.name,
                    CardState.FAILED if event.is_error else CardState.DONE,
                    result=event.output,
                    **_given(arguments=event.arguments),
                )
            case ev.ToolRejected():
                await self._move(
                    self._key(event.call_id),
                    event.name,
                    REJECTION_STATE[event.reason],
                    detail=event.detail or self._not_run_because(event.reason),
                    **_given(arguments=event.arguments, decided_by=event.decided_by),
                )
            case ev.RoundEnd():
                if self._segment.messages:
                    await self._end_segment()
                else:
                    # Whether Stop belongs on it depends on what comes next (see render).
                    self._hold_segment()
            case ev.Notice(text=text):
                await self._end_segment()
                await self._send("\n".join(f"-# {line}" for line in text.splitlines()))
            case ev.Done(reason=reason):
                await self._end_segment()
                if reason in ("interrupted", "shutdown"):
                    await self._finish_cards(
                        CardState.INTERRUPTED, answers.STOPPED_BEFORE_RUN(self.language)
                    )
                elif reason == "cut":
                    await self._finish_cards(
                        CardState.FAILED, answers.CUT_BEFORE_CALL(self.language)
                    )
                closing = _CLOSING_LINES.get(reason)
                if closing:
                    await self._send(closing(self.language), stop=False)
            case ev.Failed(message=message):
                await self._end_segment()
                await self._finish_cards(CardState.FAILED, message)
                await self._send(answers.FAILURE_PREFIX(self.language, reason=message), stop=False)

    def _not_run_because(self, reason: RejectionReason) -> str | None:
        said = _NOT_RUN_BECAUSE.get(reason)
        return said(self.language) if said else None

    # -- text ----------------------------------------------------------------------------

    async def _end_segment(self) -> None:
        if self._segment.text:
            await self._flush(final=True)
        self._segment = _Segment()

    def _hold_segment(self) -> None:
        """Keep the finished segment's text unposted until the next event says whether the
        run goes on."""
        self._cancel_post_timer()
        if has_words(self._segment.text):
            self._held = self._segment
        self._segment = _Segment()

    async def _post_held(self, *, closing: bool) -> None:
        """Post held text; closing (the run is over) posts it without Stop."""
        held, self._held = self._held, None
        if held is not None:
            await self._flush(final=True, segment=held, stop=not closing)

    def _arm_post_timer(self, segment: _Segment) -> None:
        """Post the first text when FIRST_POST_SECONDS pass with no event to do it (a model
        that pauses mid-reply)."""
        if self._post_timer is not None or segment.began is None:
            return
        delay = max(0.0, segment.began + FIRST_POST_SECONDS - self._clock())
        loop = asyncio.get_running_loop()
        self._post_timer = loop.call_later(delay, self._post_late, segment)

    def _cancel_post_timer(self) -> None:
        if self._post_timer is not None:
            self._post_timer.cancel()
            self._post_timer = None

    def _post_late(self, segment: _Segment) -> None:
        self._post_timer = None
        task = asyncio.ensure_future(self._post_if_unposted(segment))
        self._timer_tasks.add(task)
        task.add_done_callback(self._timer_tasks.discard)

    async def _post_if_unposted(self, segment: _Segment) -> None:
        async with self._drawing:
            if segment is not self._segment or segment.messages or self.broken:
                return
            try:
                await self._flush(final=False)
            except SendError:
                return  # logged by _guard; the run's next send finds the renderer broken

    async def _flush(
        self, *, final: bool, segment: _Segment | None = None, stop: bool = True
    ) -> None:
        """Show the segment's text: earlier chunks are final, the last one may still grow."""
        self._cancel_post_timer()
        segment = segment or self._segment
        if not segment.messages and not has_words(segment.text):
            return  # nothing to read yet, or stray brackets around a tool call
        text = segment.text
        # Most answers fit in one message: only a longer one is split.
        fits = 0 < len(text) <= STREAM_CHUNK_LIMIT
        chunks = [text] if fits else split_message(text, STREAM_CHUNK_LIMIT)
        for index, chunk in enumerate(chunks):
            shown = chunk if final or index < len(chunks) - 1 else chunk + " …"
            if index < len(segment.messages):
                if segment.shown[index] != shown:
                    await self._guard(partial(self._edit_text, segment.messages[index], shown))
                    segment.shown[index] = shown
            else:
                message = await self._send(shown, stop=stop)
                if message is None:
                    return
                segment.messages.append(message)
                segment.shown.append(shown)
        self._last_edit = self._clock()

    async def _edit_text(self, message: discord.Message, content: str) -> discord.Message:
        return await message.edit(content=content, allowed_mentions=self.mentions)

    async def _send(
        self, content: str, *, stop: bool = True, **kwargs: Any
    ) -> discord.Message | None:
        """Post a message; the first one replies to the user and carries the Stop button
        (unless stop is False: the run is over)."""
        if self.broken:
            return None
        first = not self.posted
        if first and self._before_first_post is not None:
            waiting, self._before_first_post = self._before_first_post, None
            await waiting()
        if first and self.run_id and "view" not in kwargs and stop:
            kwargs["view"] = stop_view(self.run_id, self.language)
        if first and self.reply_to is not None:
            kwargs["reference"] = self.reply_to.to_reference(fail_if_not_exists=False)
        message: discord.Message | None = await self._guard(
            lambda: self.channel.send(content=content, allowed_mentions=self.mentions, **kwargs)
        )
        if message is not None:
            self.posted.append(message)
            if first and self.run_id and "embed" not in kwargs and stop:
                self._stop_host = message
        return message

    # -- cards (the owner edits them; this run only posts new ones) ----------------------

    def _key(self, call_id: str) -> CardKey:
        return self._cards.setdefault(call_id, CardKey(self.conversation_key, call_id))

    async def _post_card(self, call_id: str, card: ToolCard) -> discord.Message | None:
        key = self._key(call_id)
        stop_run = self.run_id if not self.posted and self.run_id else None
        view = stop_view(stop_run, self.language) if stop_run else discord.utils.MISSING
        message = await self._send("", embed=card.render(), view=view)
        if message is not None and self._owner is not None:
            await self._owner.adopt(key, message, card, stop_run=stop_run)
            if stop_run:
                self._stop_card = key
        return message

    async def _card_message(self, call_id: str, name: str) -> int | None:
        """The call's card message (posted by this run, an earlier one, or posted now)."""
        key = self._key(call_id)
        if self._owner is not None:
            found = await self._owner.message_id(key)
            if found is not None:
                return found
        message = await self._post_card(call_id, self.new_card(name))
        return message.id if message is not None else None

    def new_card(self, name: str) -> ToolCard:
        """A card for a call of name, in the member's language, with its tool's face."""
        card = ToolCard(name=name, language=self.language, timezone=self.timezone)
        return dressed(card, self._describe(name) if self._describe else None)

    def _stop_for(self, key: CardKey) -> str | None:
        """A run that has posted nothing yet (a resume running an approved tool) puts its Stop
        button on the card of the call it runs, so the member can stop that tool."""
        if self.run_id is None or self.posted or self._stop_card is not None:
            return None
        self._stop_card = key
        return self.run_id

    async def _move(self, key: CardKey, name: str, state: CardState, **changes: Any) -> None:
        if self._owner is None or self.broken:
            return
        if await self._owner.message_id(key) is None:
            if state not in (CardState.NEEDS_APPROVAL, CardState.RUNNING):
                return  # never shown (refused before anyone was asked): no card now either
            await self._post_card(key.call_id, self.new_card(name))
        await self._owner.move(key, state, **changes)

    async def _finish_cards(self, state: CardState, detail: str) -> None:
        """Cards still preparing or running when the run ended get a final state too."""
        if self._owner is not None and not self.broken:
            await self._owner.finish_open(list(self._cards.values()), state, detail)

    async def _remove_stop_button(self) -> None:
        """The run ended: no message of it keeps Stop (a resumed run may have put it both on
        the card it ran and on its first text message)."""
        card, host = self._stop_card, self._stop_host
        self._stop_card = self._stop_host = None
        if self.broken:
            return
        if card is not None and self._owner is not None:
            await self._owner.release_stop(card)
        if host is not None:
            await self._guard(lambda: host.edit(view=None))

    async def _guard(self, action: Callable[[], Awaitable[Any]]) -> Any:
        """Send with the shared retry; a send that fails for good ends rendering, not the bot."""
        if self.broken:
            return None
        try:
            return await sent(action)
        except SendError as failure:
            self.broken = True
            log.warning(
                "Cannot post in channel %s (%s); stopping this answer",
                getattr(self.channel, "id", "?"),
                failure.reason,
            )
            raise
