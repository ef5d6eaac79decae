"""The one owner of tool cards: every change to a card goes through here.

Runs (streamed events), clicks, the expiry sweep, Stop and errors all ask the owner to move a
card. It serialises the edits of each card message and holds the card's state machine, which
only moves forward (preparing → needs approval → approved and waiting → running → a final
state): a late or concurrent writer can never put a finished card back, and every card ends in
a final state.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

import discord

from bot.agent.call_records import CallRecords, CardPlace
from bot.discord_ui.cards.embed import FINAL_STATES, CardState, ToolCard
from bot.discord_ui.persistent_buttons import approval_view, stop_view
from bot.discord_ui.sends import sent
from bot.runtime.clock import Clock
from bot.runtime.send_failures import SendError

log = logging.getLogger(__name__)

# Cards kept in memory after their last change (older ones are rebuilt from the database).
REMEMBERED_CARDS = 500

_RANK = {
    CardState.PREPARING: 0,
    CardState.NEEDS_APPROVAL: 1,
    CardState.APPROVED_WAITING: 2,
    CardState.RUNNING: 3,
}


@dataclass(frozen=True)
class CardKey:
    """A tool call of a conversation: what a card stands for."""

    conversation_key: str
    call_id: str


@dataclass
class _Card:
    card: ToolCard
    message: discord.Message | discord.PartialMessage
    stop_run: str | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    shown: Any = None


def may_move(current: CardState, new: CardState) -> bool:
    """Whether a card may go from current to new: forward only, never out of a final state."""
    if current in FINAL_STATES:
        return False
    if new in FINAL_STATES:
        return True
    return _RANK[new] >= _RANK[current]


class CardOwner:
    """Holds every tool card this process touches; the only code that edits a card."""

    def __init__(
        self,
        channel: Callable[[int], discord.PartialMessageable],
        records: CallRecords,
        clock: Clock,
    ) -> None:
        self._channel = channel
        self._records = records
        self._clock = clock
        self._cards: OrderedDict[CardKey, _Card] = OrderedDict()

    async def adopt(
        self,
        key: CardKey,
        message: discord.Message,
        card: ToolCard,
        *,
        stop_run: str | None = None,
    ) -> None:
        """Take charge of a card just posted, and remember its message for other processes."""
        self._remember(key, _Card(card, message, stop_run, shown=_look(card, stop_run)))
        place = CardPlace(card.name, message.channel.id, message.id)
        await self._records.record_card(key.conversation_key, key.call_id, place, self._clock.now())

    def state(self, key: CardKey) -> CardState | None:
        """The card's state as this process last set it (None when it holds no such card)."""
        entry = self._cards.get(key)
        return entry.card.state if entry else None

    async def message_id(self, key: CardKey) -> int | None:
        """The id of the call's card message (here or recorded by another process)."""
        entry = await self._find(key, None)
        return entry.message.id if entry else None

    async def move(
        self,
        key: CardKey,
        state: CardState,
        *,
        base: ToolCard | None = None,
        fallback: tuple[int, int] | None = None,
        stop_run: str | None = None,
        **changes: Any,
    ) -> bool:
        """Move the card to state with changes (fields of ToolCard); False when it has no card
        or the move would go backwards. base describes the card when only the database knows
        it; fallback is (channel id, message id) for cards recorded before the owner; stop_run
        puts that run's Stop button on the card (a resumed run running an approved tool)."""
        entry = await self._find(key, fallback, base)
        if entry is None:
            return False
        async with entry.lock:
            if not may_move(entry.card.state, state):
                return False
            entry.card.state = state
            for name, value in changes.items():
                setattr(entry.card, name, value)
            if stop_run is not None:
                entry.stop_run = stop_run
            await self._show(entry)
        if state in FINAL_STATES:
            await self._records.card_final(key.conversation_key, key.call_id, self._clock.now())
        return True

    async def release_stop(self, key: CardKey) -> None:
        """The run ended: the card no longer carries its Stop button."""
        entry = self._cards.get(key)
        if entry is None or entry.stop_run is None:
            return
        async with entry.lock:
            entry.stop_run = None
            await self._show(entry)

    async def finish_open(self, keys: list[CardKey], state: CardState, detail: str) -> None:
        """Cards of a run that ended while they were still preparing or running."""
        for key in keys:
            current = self.state(key)
            if current in (CardState.PREPARING, CardState.RUNNING):
                await self.move(key, state, detail=detail)

    # -- inside --------------------------------------------------------------------------

    async def _show(self, entry: _Card) -> None:
        look = _look(entry.card, entry.stop_run)
        if look == entry.shown:
            return
        view = _view(entry.card, entry.stop_run)
        message = entry.message
        try:
            await sent(partial(message.edit, embed=entry.card.render(), view=view))
        except SendError as failure:
            log.warning(
                "Could not update the card of %s (message %s): %s",
                entry.card.name,
                message.id,
                failure.reason,
            )
            return
        entry.shown = look

    async def _find(
        self, key: CardKey, fallback: tuple[int, int] | None, base: ToolCard | None = None
    ) -> _Card | None:
        entry = self._cards.get(key)
        if entry is not None:
            self._cards.move_to_end(key)
            return entry
        place = await self._records.find_card(key.conversation_key, key.call_id)
        where = (place.channel_id, place.message_id) if place is not None else fallback
        if where is None:
            return None
        name = place.tool_name if place is not None else (base.name if base else "tool")
        # Shown by another process (or before a restart): what it shows now is unknown here.
        card = replace(base, state=CardState.PREPARING) if base else ToolCard(name=name)
        message = self._channel(where[0]).get_partial_message(where[1])
        entry = _Card(card, message)
        return self._remember(key, entry)

    def _remember(self, key: CardKey, entry: _Card) -> _Card:
        self._cards[key] = entry
        self._cards.move_to_end(key)
        while len(self._cards) > REMEMBERED_CARDS:
            self._cards.popitem(last=False)
        return entry


def _view(card: ToolCard, stop_run: str | None) -> discord.ui.View | None:
    if card.state == CardState.NEEDS_APPROVAL and card.approval_id is not None:
        return approval_view(
            card.approval_id,
            language=card.language,
            editable=bool(card.arguments),
            batch=bool(card.batch),
        )
    return stop_view(stop_run, card.language) if stop_run else None


def _look(card: ToolCard, stop_run: str | None) -> Any:
    """What the message currently shows, to skip edits that would change nothing."""
    buttons = "approval" if card.state == CardState.NEEDS_APPROVAL else stop_run
    return (card.render().to_dict(), buttons)
