"""A plugin's tools: typed functions with the JSON schema the bot offers the model."""

from __future__ import annotations

import asyncio
import inspect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any, cast

from pydantic import TypeAdapter, validate_call

NAME_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
MAX_TIMEOUT_SECONDS = 300.0


class ToolFailure(Exception):
    """Raise in a tool to tell the model, in a sentence, what was wrong with its call."""


@dataclass(frozen=True)
class PluginTool:
    """A function and what the bot needs to offer it."""

    name: str
    description: str
    parameters: dict[str, Any]
    function: Callable[..., Any]
    timeout: float = 30.0
    handlers: tuple[str, ...] | None = None
    guild_id: int | None = None

    def registration(self, callback_url: str, source: str) -> dict[str, Any]:
        """The body of `POST /api/tools/register`."""
        return {
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
            "callback_url": callback_url,
            "source": source,
            "timeout_seconds": self.timeout,
            "handlers": list(self.handlers) if self.handlers else None,
            "guild_id": None if self.guild_id is None else str(self.guild_id),
        }

    @cached_property
    def _checked(self) -> Callable[..., Any]:
        return validate_call(self.function)

    async def invoke(self, arguments: dict[str, Any]) -> Any:
        """Validate the arguments against the signature and run the function."""
        checked = self._checked
        if inspect.iscoroutinefunction(self.function):
            return await checked(**arguments)
        return await asyncio.to_thread(checked, **arguments)


def _schema(function: Callable[..., Any]) -> dict[str, Any]:
    """The JSON schema of the function's parameters, from its type hints (pydantic)."""
    schema = TypeAdapter(cast(Any, function)).json_schema()
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
    return schema


def llm_tool(
    function: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    parameters: dict[str, Any] | None = None,
    timeout: float = 30.0,
    handlers: Iterable[str] | None = None,
    guild_id: int | None = None,
) -> Any:
    """Make a PluginTool of a function; the schema comes from its type hints unless given."""

    def wrap(func: Callable[..., Any]) -> PluginTool:
        tool_name = name or func.__name__
        if not NAME_PATTERN.fullmatch(tool_name):
            raise ValueError(f"tool name {tool_name!r} must be 1-64 of letters, digits, _ . -")
        if not 0 < timeout <= MAX_TIMEOUT_SECONDS:
            raise ValueError(f"timeout must be above 0 and at most {MAX_TIMEOUT_SECONDS:g}")
        summary = (inspect.getdoc(func) or "").strip()
        return PluginTool(
            name=tool_name,
            description=description or summary or tool_name,
            parameters=parameters if parameters is not None else _schema(func),
            function=func,
            timeout=timeout,
            handlers=tuple(handlers) if handlers is not None else None,
            guild_id=guild_id,
        )

    return wrap(function) if function is not None else wrap
