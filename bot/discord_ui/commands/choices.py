"""Autocomplete suggestions within Discord's limits, shared by the slash commands."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from discord import app_commands

from bot.text.clip import clip

# Discord: at most 25 choices, each name (and a text value) at most 100 characters.
CHOICES = 25
CHOICE_CHARS = 100

V = TypeVar("V", str, int)


def suggestions(candidates: Iterable[tuple[str, V]]) -> list[app_commands.Choice[V]]:
    """The first 25 (name, value) candidates as choices; a name too long is shortened, a text
    value too long is left out (it could not be sent back whole)."""
    found: list[app_commands.Choice[V]] = []
    for name, value in candidates:
        if isinstance(value, str) and len(value) > CHOICE_CHARS:
            continue
        found.append(app_commands.Choice(name=clip(name, CHOICE_CHARS), value=value))
        if len(found) == CHOICES:
            break
    return found
