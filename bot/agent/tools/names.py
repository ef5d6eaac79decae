"""Tool names as every model provider accepts them: `^[a-zA-Z0-9_-]{1,64}$`.

Registered names may hold dots (`mcp.files.read_file`, a plugin's `dice.roll`), which OpenAI and
Anthropic refuse in a function name. Only what is sent to the model is mapped: a dot becomes
`__`, and a name that grows past 64 characters is cut and ends in a hash of the registered name.
The mapping depends on the name alone, so every process and every restart sends the same name;
the registry refuses a tool whose mapped name another tool already has, so over the tools a
request offers it is one-to-one and the model's calls map back. Members, cards, the history
and the tools API keep the registered names.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from typing import Any

PROVIDER_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_OUTSIDE = re.compile(r"[^a-zA-Z0-9_-]")
_LIMIT = 64
_HASH_CHARS = 8


def wire_name(name: str) -> str:
    """The name the model sees for the registered name."""
    if PROVIDER_NAME.fullmatch(name):
        return name
    mapped = _OUTSIDE.sub("_", name.replace(".", "__")) or "_"
    if len(mapped) > _LIMIT:
        digest = hashlib.sha256(name.encode()).hexdigest()[:_HASH_CHARS]
        mapped = f"{mapped[: _LIMIT - _HASH_CHARS - 1]}-{digest}"
    return mapped


class WireNames:
    """The names of one model request: registered names out, the model's names back."""

    def __init__(self, offered: Iterable[str]) -> None:
        self._back = {wire_name(name): name for name in offered}

    def registered(self, sent: str) -> str:
        """The registered name the model meant by sent (sent itself when nothing maps to it)."""
        return self._back.get(sent, sent)

    @staticmethod
    def tools(schemas: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """OpenAI-style tool schemas with their function names mapped."""
        return [
            {
                **schema,
                "function": {**schema["function"], "name": wire_name(schema["function"]["name"])},
            }
            if "function" in schema
            else schema
            for schema in schemas
        ]

    @staticmethod
    def messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Chat messages with the names in assistant tool calls mapped (the history keeps the
        registered names; a provider checks those too)."""
        mapped: list[dict[str, Any]] = []
        for message in messages:
            calls = message.get("tool_calls")
            if message.get("role") == "assistant" and calls:
                message = {
                    **message,
                    "tool_calls": [
                        {
                            **c,
                            "function": {**c["function"], "name": wire_name(c["function"]["name"])},
                        }
                        for c in calls
                    ],
                }
            mapped.append(message)
        return mapped
