"""The tool registry: schemas from signatures, validation of names and timeouts, execution."""

from __future__ import annotations

import json
from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field

from bot.agent.tools import (
    Tool,
    ToolContext,
    ToolOutcome,
    ToolRegistry,
    parse_arguments,
    tool,
)
from bot.agent.tools.registry import MAX_TOOLS_PER_REQUEST, ToolNameTaken


@tool(requires_approval=False, source="weather", timeout=12)
async def forecast(
    ctx: ToolContext,
    place: str,
    day: Literal["today", "tomorrow"] = "today",
    hours: Annotated[int, Field(ge=1, le=48, description="How many hours ahead")] = 3,
) -> dict[str, str]:
    """Forecast for a place.

    Args:
        place: A city name in Japanese or English.
        day: Which day.
    """
    return {"place": place}


def test_schema_comes_from_signature_and_docstring() -> None:
    schema = forecast.schema()

    assert schema["type"] == "function"
    function = schema["function"]
    assert function["name"] == "forecast"
    assert function["description"] == "Forecast for a place."
    parameters = function["parameters"]
    assert parameters["required"] == ["place"]
    assert parameters["properties"]["place"] == {
        "type": "string",
        "description": "A city name in Japanese or English.",
    }
    assert parameters["properties"]["day"]["enum"] == ["today", "tomorrow"]
    assert parameters["properties"]["hours"]["maximum"] == 48
    assert parameters["properties"]["hours"]["description"] == "How many hours ahead"
    assert forecast.timeout == 12 and forecast.requires_approval is False
    assert forecast.source == "weather"


def test_an_explicit_schema_is_accepted() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}

    @tool("web.search", parameters=schema, description="Search the web.")
    async def search(ctx: ToolContext, q: str) -> str:
        return q

    assert search.parameters == schema and search.name == "web.search"
    assert search.requires_approval is True


@pytest.mark.parametrize("name", ["", "has space", "x" * 65, "日本語", "semi;colon"])
def test_invalid_names_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="1-64 characters"):
        Tool(name=name, description="d", parameters={"type": "object"}, handler=forecast.handler)


@pytest.mark.parametrize("timeout", [0, -1, 301])
def test_timeouts_outside_0_to_300_seconds_are_refused(timeout: float) -> None:
    with pytest.raises(ValueError, match="at most 300"):
        Tool(
            name="t",
            description="d",
            parameters={"type": "object"},
            handler=forecast.handler,
            timeout=timeout,
        )


def test_default_timeout_is_30_seconds_and_approval_is_required() -> None:
    @tool()
    async def act(ctx: ToolContext) -> None:
        """Do something."""

    assert act.timeout == 30 and act.requires_approval is True


def test_handler_must_take_a_tool_context_first() -> None:
    with pytest.raises(TypeError, match="ctx: ToolContext"):

        @tool()
        async def bad(place: str) -> None:
            """Bad."""


def test_register_overwrites_unregister_and_clear_by_source() -> None:
    registry = ToolRegistry([forecast])
    replacement = Tool(
        name="forecast",
        description="new",
        parameters={"type": "object"},
        handler=forecast.handler,
        source="weather",
    )
    other = Tool(
        name="other",
        description="o",
        parameters={"type": "object"},
        handler=forecast.handler,
        source="core",
    )

    registry.register(replacement)
    registry.register(other)

    assert registry.get("forecast") is replacement
    assert registry.clear("weather") == ["forecast"]
    assert registry.names() == ["other"]
    assert registry.unregister("other") is True
    assert registry.unregister("other") is False


def test_guild_scoped_tools_are_offered_only_in_their_guild() -> None:
    scoped = Tool(
        name="local",
        description="l",
        parameters={"type": "object"},
        handler=forecast.handler,
        guild_id=42,
    )
    registry = ToolRegistry([forecast, scoped])

    assert [t.name for t in registry.select(None, 42)] == ["forecast", "local"]
    assert [t.name for t in registry.select(None, 7)] == ["forecast"]
    assert [t.name for t in registry.select(["local"], None)] == []


def test_arguments_are_checked_against_the_schema() -> None:
    ok, problem = parse_arguments(forecast, '{"place": "大阪", "hours": 5}')
    assert ok == {"place": "大阪", "hours": 5} and problem is None

    _, problem = parse_arguments(forecast, '{"place": "大阪", "hours": 99}')
    assert problem is not None and "hours" in problem and '"hours": 99' in problem

    _, problem = parse_arguments(forecast, '{"place": "大阪", "color": "red"}')
    assert problem is not None and "color" in problem

    _, problem = parse_arguments(forecast, "[1, 2]")
    assert problem is not None and "JSON object" in problem


class Window(BaseModel):
    """A time window."""

    model_config = ConfigDict(extra="forbid")

    start: str
    end: str | None = Field(None, description="leave out for an open end")


@tool(requires_approval=False)
async def book(
    ctx: ToolContext, room: str, window: Window | None = None, note: str | None = None
) -> str:
    """Book a room.

    Args:
        room: which room.
        window: when; leave it out for now.
        note: a note for the others.
    """
    return room


@tool(requires_approval=False)
async def swap(ctx: ToolContext, first: Window, second: Window) -> str:
    """Swap two windows."""
    return "ok"


def test_the_schema_keeps_only_what_the_model_needs() -> None:
    parameters = book.schema()["function"]["parameters"]

    # An optional field is its type, left out of required; a model used once is written inline.
    assert parameters == {
        "type": "object",
        "properties": {
            "room": {"type": "string", "description": "which room."},
            "window": {
                "type": "object",
                "description": "when; leave it out for now.",
                "properties": {
                    "start": {"type": "string"},
                    "end": {"type": "string", "description": "leave out for an open end"},
                },
                "required": ["start"],
            },
            "note": {"type": "string", "description": "a note for the others."},
        },
        "required": ["room"],
    }
    # A model used twice stays a definition both refer to.
    shared = swap.schema()["function"]["parameters"]
    assert set(shared["$defs"]) == {"Window"}
    assert shared["properties"]["first"] == {"$ref": "#/$defs/Window"}


def test_a_trimmed_schema_still_checks_the_arguments_in_full() -> None:
    ok, problem = parse_arguments(book, '{"room": "A", "window": null, "note": null}')
    assert problem is None and ok == {"room": "A", "window": None, "note": None}

    _, problem = parse_arguments(book, '{"room": "A", "window": {"start": "9", "color": "red"}}')
    assert problem is not None and "color" in problem


def test_outcomes_serialise_as_the_model_expects() -> None:
    assert json.loads(ToolOutcome({"a": 1}).to_content()) == {"output": {"a": 1}, "is_error": False}
    assert json.loads(ToolOutcome("bad", is_error=True).to_content()) == {
        "is_error": True,
        "error": "bad",
    }


def _outside(name: str) -> Tool:
    """A tool from outside the bot: it has a provider."""
    return Tool(
        name=name,
        description="d",
        parameters={"type": "object"},
        handler=forecast.handler,
        source="plugin",
        provider="p" * 64,
    )


def test_a_tool_sent_to_the_model_under_a_name_another_has_is_refused() -> None:
    registry = ToolRegistry([_outside("dice.roll")])

    with pytest.raises(ToolNameTaken) as refused:
        registry.register(_outside("dice__roll"))

    assert str(refused.value) == (
        "'dice__roll' would be sent to the model as 'dice__roll', which is already the name of "
        "'dice.roll'"
    )
    assert registry.names() == ["dice.roll"]
    registry.register(_outside("dice.roll"))  # the same name again replaces it
    registry.unregister("dice.roll")
    registry.register(_outside("dice__roll"))  # the name is free once the other is gone
    assert registry.names() == ["dice__roll"]


def test_a_request_offers_at_most_128_tools_the_bots_own_first_then_by_name(
    caplog: pytest.LogCaptureFixture,
) -> None:
    registry = ToolRegistry([forecast, *(_outside(f"extra_{n:03d}") for n in range(150))])

    first = registry.select(None, None)
    again = registry.select(None, None)

    assert len(first) == MAX_TOOLS_PER_REQUEST == 128
    assert first[0] is forecast
    assert [t.name for t in first[1:]] == [f"extra_{n:03d}" for n in range(127)]
    assert [t.name for t in again] == [t.name for t in first]
    (warning,) = [r.getMessage() for r in caplog.records]  # said once, not per request
    assert "151 tools are offered here" in warning and "23 tools from outside" in warning


def test_a_tool_from_outside_checks_arguments_before_any_card() -> None:
    checked = Tool(
        name="dice.roll",
        description="d",
        parameters={"type": "object"},
        handler=forecast.handler,
        check_arguments=lambda args: None if "notation" in args else "notation is missing.",
    )

    ok, problem = parse_arguments(checked, '{"notation": "2d6"}')
    _, missing = parse_arguments(checked, '{"sides": 6}')

    assert ok == {"notation": "2d6"} and problem is None
    assert missing == 'notation is missing. You sent: {"sides": 6}'
