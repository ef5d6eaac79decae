"""Tool names sent to the model: mapped where providers refuse them, unchanged elsewhere."""

from __future__ import annotations

from bot.agent.tools.registry import WireNames, wire_name


def test_names_providers_accept_are_sent_unchanged() -> None:
    assert wire_name("create_reminder") == "create_reminder"
    assert wire_name("get-forecast") == "get-forecast"


def test_dots_become_double_underscores() -> None:
    assert wire_name("mcp.dice.roll") == "mcp__dice__roll"
    assert wire_name("dice.roll") == "dice__roll"


def test_a_name_grown_past_64_characters_is_cut_and_ends_in_a_hash() -> None:
    long = "mcp." + "a" * 30 + "." + "b" * 29

    sent = wire_name(long)

    assert len(sent) == 64 and sent.startswith("mcp__aaaa")
    assert sent != wire_name(long[:-1] + "c")


def test_tools_and_history_are_mapped_and_calls_map_back() -> None:
    request = WireNames(["mcp.dice.roll", "create_reminder"])
    schemas = [{"type": "function", "function": {"name": "mcp.dice.roll", "parameters": {}}}]
    history = [
        {"role": "user", "content": "振って"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "mcp.dice.roll", "arguments": "{}"},
                }
            ],
        },
    ]

    (tool,) = WireNames.tools(schemas)
    mapped = WireNames.messages(history)

    assert tool["function"]["name"] == "mcp__dice__roll"
    assert mapped[1]["tool_calls"][0]["function"]["name"] == "mcp__dice__roll"
    assert history[1]["tool_calls"][0]["function"]["name"] == "mcp.dice.roll"  # not mutated
    assert request.registered("mcp__dice__roll") == "mcp.dice.roll"
    assert request.registered("create_reminder") == "create_reminder"
    assert request.registered("made_up") == "made_up"
