"""The Edit form: one input per argument up to Discord's five, the rest as one JSON input, and
the form read back into arguments with a sentence for what cannot be read."""

from __future__ import annotations

from typing import Any

from bot.agent.tools import ToolContext, tool
from bot.discord_ui.cards.editing import REST, form_fields, read_form


@tool()
async def plan_trip(
    ctx: ToolContext,
    place: str,
    days: int,
    people: list[str],
    budget: float | None = None,
    note: str | None = None,
    hotel: str | None = None,
) -> str:
    """Plan a trip."""
    return "planned"


@tool()
async def set_alarm(ctx: ToolContext, when: str, repeat: int | None = None) -> str:
    """Set an alarm."""
    return "set"


def _by_id(fields: list[tuple[str, str, str, bool]]) -> dict[str, str]:
    return {field_id: value for field_id, _, value, _ in fields}


def test_past_five_arguments_the_rest_share_one_json_input() -> None:
    arguments: dict[str, Any] = {
        "place": "京都",
        "days": 2,
        "people": ["hana", "taro"],
        "budget": 30000,
        "hotel": "駅前",
    }

    fields = form_fields(plan_trip, arguments, "ja")

    assert [f[0] for f in fields] == ["a:place", "a:days", "a:people", "a:budget", REST]
    shown = _by_id(fields)
    assert shown["a:place"] == "京都" and shown["a:days"] == "2"
    assert shown["a:people"] == '["hana", "taro"]'
    assert shown[REST] == '{"hotel": "駅前"}'
    assert fields[-1][1] == "そのほか（JSON）"


def test_the_form_reads_back_text_as_text_and_the_rest_as_json() -> None:
    values = {
        "a:place": " 奈良 ",
        "a:days": "3",
        "a:people": '["hana"]',
        "a:budget": "",
        REST: '{"hotel": "旅館", "note": null}',
    }

    arguments, problem = read_form(plan_trip, values, "en")

    assert problem is None
    assert arguments == {"place": "奈良", "days": 3, "people": ["hana"], "hotel": "旅館"}


def test_an_input_that_is_not_json_is_named_in_the_members_language() -> None:
    arguments, problem = read_form(set_alarm, {"a:when": "9時", "a:repeat": "毎日"}, "ja")

    assert arguments is None and problem == "「repeat」はJSONとして読めません。"
    _, problem = read_form(plan_trip, {REST: "[1, 2]"}, "en")
    assert problem == "“Other (JSON)” is not valid JSON."
