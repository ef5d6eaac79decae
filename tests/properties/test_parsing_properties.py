"""Properties of what the bot parses from outside: button custom ids and the model's arguments."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.agent.tools import ToolContext, parse_arguments, tool
from bot.discord_ui.persistent_buttons import APPROVAL_ACTIONS, ApprovalButton, StopButton
from bot.reminders.discord_part.buttons import REMINDER_ACTIONS, ReminderButton

PROPERTY_SETTINGS = settings(max_examples=200, deadline=None)
IDS = st.integers(min_value=1, max_value=10**18 - 1)
DISCORD_CUSTOM_ID_LIMIT = 100


def _parse(kind: Any, custom_id: str) -> Any:
    """What discord.py does with a clicked custom_id: match the template, rebuild the item."""
    match = kind.__discord_ui_compiled_template__.fullmatch(custom_id)
    if match is None:
        return None
    return asyncio.run(kind.from_custom_id(None, None, match))


@PROPERTY_SETTINGS
@given(IDS, st.sampled_from(sorted(APPROVAL_ACTIONS)))
def test_an_approval_button_round_trips_through_its_custom_id(item_id: int, action: str) -> None:
    custom_id = ApprovalButton(item_id, action).custom_id

    parsed = _parse(ApprovalButton, custom_id)

    assert len(custom_id) <= DISCORD_CUSTOM_ID_LIMIT
    assert (parsed.item_id, parsed.action) == (item_id, action)


@PROPERTY_SETTINGS
@given(IDS, st.sampled_from(sorted(REMINDER_ACTIONS)))
def test_a_reminder_button_round_trips_through_its_custom_id(item_id: int, action: str) -> None:
    parsed = _parse(ReminderButton, ReminderButton(item_id, action).custom_id)

    assert (parsed.item_id, parsed.action) == (item_id, action)


@PROPERTY_SETTINGS
@given(st.text(alphabet="0123456789abcdef", min_size=6, max_size=32))
def test_a_stop_button_round_trips_through_its_custom_id(run_id: str) -> None:
    assert _parse(StopButton, StopButton(run_id).custom_id).run_id == run_id


@PROPERTY_SETTINGS
@given(st.one_of(st.text(max_size=120), st.from_regex(r"(apv|rem|stop):[0-9a-z:]{0,40}")))
def test_any_custom_id_is_either_refused_or_parsed_into_a_valid_button(custom_id: str) -> None:
    for kind, actions in ((ApprovalButton, APPROVAL_ACTIONS), (ReminderButton, REMINDER_ACTIONS)):
        parsed = _parse(kind, custom_id)
        if parsed is not None:
            assert 0 <= parsed.item_id < 10**18 and parsed.action in actions
    stop = _parse(StopButton, custom_id)
    assert stop is None or 6 <= len(stop.run_id) <= 32


@tool(requires_approval=False)
async def add_note(ctx: ToolContext, text: str, priority: int = 1) -> str:
    """Save a note.

    Args:
        text: What to write down.
        priority: 1 to 3.
    """
    return text


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@PROPERTY_SETTINGS
@given(st.one_of(st.text(max_size=300), JSON_VALUES.map(json.dumps)))
def test_any_raw_arguments_give_arguments_or_a_sentence_for_the_model(raw: str) -> None:
    arguments, problem = parse_arguments(add_note, raw)

    assert (arguments is None) != (problem is None)
    if problem is not None:
        assert "add_note" in problem and raw[:500] in problem
    else:
        assert isinstance(arguments, dict) and isinstance(arguments.get("text"), str)


@PROPERTY_SETTINGS
@given(st.text(), st.integers(min_value=-(2**40), max_value=2**40))
def test_well_formed_arguments_pass_unchanged(text: str, priority: int) -> None:
    sent = {"text": text, "priority": priority}

    assert parse_arguments(add_note, json.dumps(sent, ensure_ascii=False)) == (sent, None)
