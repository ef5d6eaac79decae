"""A tool from outside may name itself for members: the JSON Schema `title` of its parameters
is the card's title and each property's `title` its label. Both are checked like the rest of
what such a tool sends: short, one line, and no mention of anyone."""

from __future__ import annotations

import re
from typing import Any

from bot.agent.tools.presentation import Label, Look
from bot.i18n import Text

MAX_TITLE_CHARS = 60
# Discord's own limit for a field name is 256; a label reads best short.
MAX_LABEL_CHARS = 45
# User, role and channel mentions, @everyone / @here: a card must never carry a ping.
_MENTION = re.compile(r"<[@#][!&]?\d+>|@everyone|@here", re.IGNORECASE)


def _clean(value: Any, limit: int) -> str | None:
    """The text if it is a short one-line string without mentions, else None."""
    if not isinstance(value, str):
        return None
    text = " ".join(value.split())
    if not text or len(text) > limit or _MENTION.search(text):
        return None
    return text


def look_of(parameters: dict[str, Any], named: str | None = None) -> Look | None:
    """The card look a tool from outside gave in its schema, or None (then the card shows
    its name and arguments as sent); named is a title the tool gave beside its schema (an
    MCP tool's). Every argument stays on the card: one the tool gave no
    label is shown under its own name, so an approver sees all that would be sent."""
    title = _clean(parameters.get("title") or named, MAX_TITLE_CHARS)
    if title is None:
        return None
    properties = parameters.get("properties")
    labels: dict[str, Label] = {}
    if isinstance(properties, dict):
        for key, schema in properties.items():
            own = _clean(schema.get("title"), MAX_LABEL_CHARS) if isinstance(schema, dict) else None
            name = own or str(key)[:MAX_LABEL_CHARS]
            labels[str(key)] = Label(Text(name, name))
    return Look(title=Text(title, title), labels=labels)
