"""How a tool is written and how one call of it runs: the decorator that makes a typed async
function a Tool (its JSON schema from the signature), the model's
arguments checked, the handler awaited with its timeout, every failure an error result for the
model, never an exception."""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from bot.agent.conversation.fences import Untrusted
from bot.agent.tools.presentation import Look
from bot.agent.tools.registry import (
    DEFAULT_TIMEOUT_SECONDS,
    Tool,
    ToolCheck,
    ToolContext,
    ToolHandler,
)
from bot.agent.tools.schema import clean_schema, docstring_parts, model_from_signature
from bot.runtime.redaction import redact


def tool(
    name: str | None = None,
    *,
    description: str | None = None,
    parameters: dict[str, Any] | None = None,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
    requires_approval: bool = True,
    source: str = "core",
    guild_id: int | None = None,
    servers_only: bool = False,
    look: Look | None = None,
    read_only: bool = False,
    check: ToolCheck | None = None,
    untrusted: Untrusted | Callable[[Any], Untrusted | None] | None = None,
) -> Callable[[ToolHandler], Tool]:
    """Turn `async def f(ctx: ToolContext, ...)` into a Tool; schema from signature + docstring."""

    def wrap(func: ToolHandler) -> Tool:
        if not inspect.iscoroutinefunction(func):
            raise TypeError(f"tool {func.__name__!r} must be an async function")
        tool_name = name or func.__name__
        summary, _ = docstring_parts(func)
        model = (
            None if parameters is not None else model_from_signature(tool_name, func, ToolContext)
        )
        schema = (
            parameters
            if parameters is not None
            else clean_schema(model.model_json_schema() if model else {})
        )
        return Tool(
            name=tool_name,
            description=description or summary or tool_name,
            parameters=schema,
            handler=func,
            timeout=timeout,
            requires_approval=requires_approval,
            source=source,
            guild_id=guild_id,
            arguments_model=model,
            servers_only=servers_only,
            look=look,
            read_only=read_only,
            check=check,
            untrusted=untrusted,
        )

    return wrap


class ToolError(Exception):
    """Raised by a tool to tell the model what was wrong with its call (not a crash)."""


@dataclass(frozen=True)
class ToolOutcome:
    """What a tool call produced, in the shape the model receives."""

    output: Any
    is_error: bool = False
    # Where the words of the output come from when they are not the bot's own.
    untrusted: Untrusted | None = None

    def to_content(self) -> str:
        """JSON text for the tool message: `{"output": ...}` or `{"is_error": true, ...}`."""
        if self.is_error:
            return json.dumps({"is_error": True, "error": self.output}, ensure_ascii=False)
        return json.dumps(
            {"output": self.output, "is_error": False}, ensure_ascii=False, default=str
        )


def parse_arguments(tool_item: Tool, raw: str) -> tuple[dict[str, Any] | None, str | None]:
    """Parse and validate the model's raw JSON arguments; return (arguments, error sentence)."""
    try:
        loaded = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError as exc:
        return None, (
            # Some of json's messages end in "at" already ("Unterminated string starting at").
            f"Your arguments for {tool_item.name} were not valid JSON "
            f"({exc.msg.removesuffix(' at')} at position {exc.pos}). You sent: {raw[:500]}. "
            "Call the tool again with a JSON object."
        )
    if not isinstance(loaded, dict):
        return None, (
            f"Arguments for {tool_item.name} must be a JSON object; you sent: {raw[:500]}"
        )
    if tool_item.check_arguments is not None:
        problem = tool_item.check_arguments(loaded)
        if problem is not None:
            return None, f"{problem} You sent: {raw[:500]}"
    if tool_item.arguments_model is None:
        return loaded, None
    try:
        tool_item.arguments_model.model_validate(loaded)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors()
        )
        return None, (
            f"Arguments for {tool_item.name} do not match its schema ({problems}). "
            f"You sent: {raw[:500]}"
        )
    return loaded, None


async def execute(tool_item: Tool, ctx: object, arguments: Mapping[str, Any]) -> ToolOutcome:
    """Run a tool with its timeout; every failure becomes an error outcome, never an exception."""
    try:
        if tool_item.arguments_model is not None:
            validated = tool_item.arguments_model.model_validate(dict(arguments))
            kwargs = {k: getattr(validated, k) for k in type(validated).model_fields}
        else:
            kwargs = dict(arguments)
        async with asyncio.timeout(tool_item.timeout):
            output = await tool_item.handler(ctx, **kwargs)
    except ToolError as exc:
        # A plugin's refusal is its own words too.
        said = None if callable(tool_item.untrusted) else tool_item.untrusted
        return ToolOutcome(redact(str(exc)), is_error=True, untrusted=said)
    except TimeoutError:
        return ToolOutcome(
            f"{tool_item.name} did not finish within {tool_item.timeout:g} seconds", is_error=True
        )
    except ValidationError as exc:
        return ToolOutcome(f"invalid arguments: {exc.errors()[0]['msg']}", is_error=True)
    except Exception as exc:  # a broken tool must not crash the conversation
        return ToolOutcome(redact(f"{type(exc).__name__}: {exc}"), is_error=True)
    return ToolOutcome(output, untrusted=tool_item.untrusted_in(output))
