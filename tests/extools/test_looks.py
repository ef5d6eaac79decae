"""A tool from outside names itself for members through its schema's titles, checked like
the rest of what it sends."""

from __future__ import annotations

from typing import Any

import discord

from bot.discord_ui.cards.embed import CardState, ToolCard
from bot.extools.looks import MAX_TITLE_CHARS, look_of

SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "サイコロを振る",
    "properties": {
        "sides": {"type": "integer", "title": "面の数"},
        "times": {"type": "integer"},
    },
}


def _fields(embed: discord.Embed) -> dict[str, str]:
    return {str(f.name): str(f.value) for f in embed.fields}


def test_the_schema_titles_become_the_card_title_and_labels() -> None:
    look = look_of(SCHEMA)

    assert look is not None and look.title.form("en") == "サイコロを振る"
    card = ToolCard(
        name="roll",
        state=CardState.NEEDS_APPROVAL,
        arguments={"sides": 20, "times": 2},
        look=look,
        source="mcp:dice",
    )
    embed = card.render()
    fields = _fields(embed)
    assert embed.title == "🔧 サイコロを振る"
    # An argument without a label is still shown, under its own name: nothing sent is hidden.
    assert fields["面の数"] == "20" and fields["times"] == "2"
    assert "mcp:dice" in fields["提供元"]


def test_a_title_with_a_mention_or_too_long_is_not_used() -> None:
    for title in ("@everyone 見て", "<@123456789012345678> へ", "x" * (MAX_TITLE_CHARS + 1)):
        assert look_of({**SCHEMA, "title": title}) is None


def test_a_label_with_a_mention_falls_back_to_the_arguments_name() -> None:
    schema = {**SCHEMA, "properties": {"sides": {"type": "integer", "title": "<@&42> 面"}}}

    look = look_of(schema)

    assert look is not None and look.labels["sides"].words.form("ja") == "sides"


def test_a_schema_without_a_title_keeps_the_card_as_it_was() -> None:
    assert look_of({"type": "object", "properties": {}}) is None
    assert look_of({"type": "object"}, named="Roll dice") is not None
