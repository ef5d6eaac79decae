"""The card owner: one writer per card, a state machine that only moves forward."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from bot.agent.call_records import CallRecords
from bot.discord_ui.cards.embed import FINAL_STATES, CardState, ToolCard, state_line
from bot.discord_ui.cards.owner import CardKey, CardOwner, may_move
from bot.runtime.clock import ManualClock
from bot.storage import Database


@dataclass
class Channel:
    id: int = 5


@dataclass
class Message:
    """Records edits; each edit yields to the loop, as a real request would."""

    id: int
    channel: Channel = field(default_factory=Channel)
    edits: list[dict[str, Any]] = field(default_factory=list)
    in_flight: int = 0
    overlapped: bool = False

    async def edit(self, **kwargs: Any) -> Message:
        self.in_flight += 1
        self.overlapped = self.overlapped or self.in_flight > 1
        await asyncio.sleep(0)
        self.edits.append(kwargs)
        self.in_flight -= 1
        return self


class Messages:
    """get_partial_messageable(channel).get_partial_message(id), by id."""

    def __init__(self) -> None:
        self.by_id: dict[int, Message] = {}

    def __call__(self, channel_id: int) -> Messages:
        return self

    def get_partial_message(self, message_id: int) -> Message:
        return self.by_id.setdefault(message_id, Message(message_id))


def titles(message: Message) -> list[str]:
    return [edit["embed"].description for edit in message.edits]


KEY = CardKey("c5:u7", "call_1")


async def test_a_finished_card_is_never_shown_as_running_again(
    database: Database, clock: ManualClock
) -> None:
    owner = CardOwner(Messages(), CallRecords(database.sessions, "test/1"), clock)  # type: ignore[arg-type]
    message = Message(42)
    await owner.adopt(KEY, message, ToolCard(name="add_note"))  # type: ignore[arg-type]

    # The run's result and a slow click's "approved → running" arrive in the wrong order.
    assert await owner.move(KEY, CardState.DONE, result="ok")
    assert not await owner.move(KEY, CardState.RUNNING, decided_by=7)

    assert owner.state(KEY) == CardState.DONE
    assert titles(message) == [state_line(CardState.DONE, "ja")]


async def test_concurrent_writers_edit_one_at_a_time_and_end_on_the_final_state(
    database: Database, clock: ManualClock
) -> None:
    owner = CardOwner(Messages(), CallRecords(database.sessions, "test/1"), clock)  # type: ignore[arg-type]
    message = Message(42)
    await owner.adopt(KEY, message, ToolCard(name="add_note"))  # type: ignore[arg-type]

    await asyncio.gather(
        owner.move(KEY, CardState.NEEDS_APPROVAL, approval_id=3),
        owner.move(KEY, CardState.RUNNING),
        owner.move(KEY, CardState.REJECTED, detail="no"),
        owner.move(KEY, CardState.RUNNING),
    )

    assert not message.overlapped
    assert owner.state(KEY) == CardState.REJECTED
    assert titles(message)[-1] == state_line(CardState.REJECTED, "ja")


async def test_another_process_finds_the_card_by_its_call(
    database: Database, clock: ManualClock
) -> None:
    messages = Messages()
    first = CardOwner(messages, CallRecords(database.sessions, "test/1"), clock)  # type: ignore[arg-type]
    await first.adopt(KEY, messages.get_partial_message(42), ToolCard(name="add_note"))  # type: ignore[arg-type]

    second = CardOwner(messages, CallRecords(database.sessions, "test/1"), clock)  # type: ignore[arg-type]
    assert await second.move(KEY, CardState.INVALIDATED)

    assert titles(messages.by_id[42])[-1] == state_line(CardState.INVALIDATED, "ja")
    assert await second.message_id(CardKey("c5:u7", "call_unknown")) is None


def test_the_state_machine_only_moves_forward() -> None:
    order = [CardState.PREPARING, CardState.NEEDS_APPROVAL, CardState.RUNNING]
    for i, current in enumerate(order):
        assert all(may_move(current, later) for later in order[i:])
        assert not any(may_move(current, earlier) for earlier in order[:i])
        assert all(may_move(current, final) for final in FINAL_STATES)
    for final in FINAL_STATES:
        assert not any(may_move(final, other) for other in [*order, *FINAL_STATES])
