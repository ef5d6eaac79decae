"""Running a tool call: the model's arguments checked, the handler awaited with its timeout, and
every failure turned into an error result for the model (never an exception)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError

from bot.runtime.redaction import redact


class Tool(Protocol):
    """What running a call needs of a registered tool (bot.agent.tools.registry.Tool has it)."""

    @property
    def name(self) -> str:
        """The tool's name."""

    @property
    def timeout(self) -> float:
        """Seconds the handler may take."""

    @property
    def arguments_model(self) -> type[BaseModel] | None:
        """Validates the model's arguments, when the tool has one."""

    @property
    def handler(self) -> Callable[..., Awaitable[Any]]:
        """The function that does the work."""


class ToolError(Exception):
    """Raised by a tool to tell the model what was wrong with its call (not a crash)."""


@dataclass(frozen=True)
class ToolOutcome:
    """What a tool call produced, in the shape the model receives."""

    output: Any
    is_error: bool = False

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
            f"Your arguments for {tool_item.name} were not valid JSON ({exc.msg} at "
            f"position {exc.pos}). You sent: {raw[:500]}. Call the tool again with a JSON object."
        )
    if not isinstance(loaded, dict):
        return None, (
            f"Arguments for {tool_item.name} must be a JSON object; you sent: {raw[:500]}"
        )
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
        return ToolOutcome(redact(str(exc)), is_error=True)
    except TimeoutError:
        return ToolOutcome(
            f"{tool_item.name} did not finish within {tool_item.timeout:g} seconds", is_error=True
        )
    except ValidationError as exc:
        return ToolOutcome(f"invalid arguments: {exc.errors()[0]['msg']}", is_error=True)
    except Exception as exc:  # a broken tool must not crash the conversation
        return ToolOutcome(redact(f"{type(exc).__name__}: {exc}"), is_error=True)
    return ToolOutcome(output)
