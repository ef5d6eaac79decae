"""How a tool call looks to members: a title and argument labels in both languages, how each
value is shown, and a sentence for the result. Plain data the Discord layer draws; nothing
here is sent to the model."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from bot.i18n import Language, Text

# How a value is shown: words as given, a local time as a Discord timestamp, a member as a
# mention that pings nobody, a custom rendering (render), or not at all (hidden).
ValueKind = Literal["text", "time", "member", "hidden"]


@dataclass(frozen=True)
class Label:
    """An argument as members see it: its name in both languages and how its value reads."""

    words: Text
    kind: ValueKind = "text"
    # Text for the value in a language, or None to hide it (a repeat rule in words).
    render: Callable[[Any, Language], str | None] | None = None


# A sentence about a tool's output in a language (None: nothing worth saying).
Summary = Callable[[Any, Language], str | None]
# What a call is about, looked up when its card is first shown (the reminder an id names):
# (label, value) lines. Given the arguments and the call's ToolContext.
Details = Callable[[dict[str, Any], Any], Awaitable[list[tuple[Text, str]]]]


@dataclass(frozen=True)
class Look:
    """A tool's face on cards: title, labelled arguments, a sentence for its result.

    Arguments without a label are not shown (they are for the model: ids, notes)."""

    title: Text
    labels: Mapping[str, Label] = field(default_factory=dict)
    summary: Summary | None = None
    # While running and when done, for a read-only call's compact status line.
    doing: Text | None = None
    # Lines about what the call is about, for the approval card (see Details).
    details: Details | None = None
