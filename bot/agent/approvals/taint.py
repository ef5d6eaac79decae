"""The one rule for asking despite "Always allow": after words that are not the member's.

A turn whose context carries untrusted words — a message someone else wrote (quoted, the
thread's start, another speaker), a file, a note, a web page, a plugin's answer — may be
following them rather than the member. Then every call that is not read-only shows its card,
even when the member always allows the tool or the server approves it automatically; read-only
calls run as before. The gate (bot/agent/tool_calls.py) asks this module, and the approval row
keeps what was found, so a resume in another process asks the same way.
"""

from __future__ import annotations

from collections.abc import Iterable

from bot.agent.conversation import messages as m
from bot.agent.conversation.fences import UNTRUSTED, Untrusted
from bot.agent.tools import Tool


def untrusted_in(history: Iterable[m.Message], asker: int) -> set[Untrusted]:
    """Where the untrusted words of a context window come from (asker's own words are not)."""
    found: set[Untrusted] = set()
    for message in history:
        if message.exclude_from_context:
            continue
        if isinstance(message, m.UserMessage):
            if message.author_id is not None and message.author_id != asker:
                found.add("speaker")
            if message.files:
                found.add("file")
            for quote in message.quotes:
                if quote.files:
                    found.add("file")
                if quote.missing is None and quote.author_id != asker:
                    found.add("quote")
        elif isinstance(message, m.ToolResultMessage) and message.untrusted is not None:
            found.add(message.untrusted)
    return found


def asks_anyway(tool_item: Tool, untrusted: set[Untrusted]) -> bool:
    """Whether this call shows its card whatever grants or auto-approval say."""
    return bool(untrusted) and not tool_item.read_only


def stored(untrusted: set[Untrusted]) -> str | None:
    """The sources as the approval row keeps them (None when there are none)."""
    return ",".join(ordered(untrusted)) or None


def loaded(text: str | None) -> set[Untrusted]:
    """The sources an approval row kept."""
    kept = set((text or "").split(","))
    return {source for source in UNTRUSTED if source in kept}


def ordered(untrusted: Iterable[Untrusted]) -> tuple[Untrusted, ...]:
    """The sources in one fixed order, for cards and rows."""
    found = set(untrusted)
    return tuple(source for source in UNTRUSTED if source in found)
