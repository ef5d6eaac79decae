"""What a tool is (a typed async function with its JSON schema and policy) and how one call of it
runs: the model's arguments checked, the handler awaited with its timeout, every failure an error
result for the model, never an exception."""

from __future__ import annotations

import asyncio
import inspect
import json
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ValidationError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.agent.conversation.fences import Untrusted
from bot.agent.tools.presentation import Look
from bot.agent.tools.schema import clean_schema, docstring_parts, model_from_signature
from bot.runtime.clock import Clock
from bot.runtime.redaction import redact
from bot.settings import Settings

# What a tool takes its services from: one typed object the composition root builds.
D = TypeVar("D")

TOOL_NAME_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
DEFAULT_TIMEOUT_SECONDS = 30.0
MAX_TIMEOUT_SECONDS = 300.0


@dataclass
class ToolContext(Generic[D]):
    """Everything a tool may use about the current request; tools never read globals.

    `deps` is the bot's one dependencies object; a tool declares the part it needs as a
    Protocol (`ctx: ToolContext[WeatherDeps]`) and reads its services from it.
    """

    user_id: int
    user_name: str
    guild_id: int | None
    channel_id: int
    clock: Clock
    sessions: async_sessionmaker[AsyncSession]
    settings: Settings
    timezone: ZoneInfo
    # Long-lived services (an index, the reminder service…), built by the composition root.
    deps: D
    origin_message_id: int | None = None
    conversation_key: str = ""
    is_admin: bool = False
    # The member's roles in the server and whether they manage it.
    role_ids: tuple[int, ...] = ()
    manages_server: bool = False
    # The language the member wrote in (what a tool stores for later posts, e.g. a reminder).
    language: str = "ja"
    # Partial output a long tool reports as it goes; kept if the run is interrupted.
    partial: list[Any] = field(default_factory=list)
    # The model's call id and its arguments as sent (tools in other processes receive both).
    call_id: str = ""
    raw_arguments: str = ""

    def now(self) -> datetime:
        """The current instant in UTC, from the injected clock."""
        return self.clock.now()

    def local_now(self) -> datetime:
        """The current instant in the requester's time zone."""
        return self.clock.now().astimezone(self.timezone)

    def report_partial(self, value: Any) -> None:
        """Record progress that should survive an interruption."""
        self.partial.append(value)


ToolHandler = Callable[..., Awaitable[Any]]
# A tool's own check of a call before anyone is asked to approve it: what is wrong, as a
# sentence for the model, or None when the call can run (a time in the past, another member's
# reminder).
ToolCheck = Callable[[dict[str, Any], "ToolContext[Any]"], Awaitable[str | None]]


@dataclass(frozen=True)
class Tool:
    """A callable the model may request, with its JSON schema and execution policy."""

    name: str
    description: str
    parameters: dict[str, Any]
    handler: ToolHandler
    timeout: float = DEFAULT_TIMEOUT_SECONDS
    requires_approval: bool = True
    source: str = "core"
    guild_id: int | None = None
    # Handlers that offer the tool without listing it (tools registered from outside).
    handlers: frozenset[str] = frozenset()
    # Validates and converts the model's arguments before the handler sees them.
    arguments_model: type[BaseModel] | None = None
    # Works only inside a server (its notes, say): not offered in DMs or the console.
    servers_only: bool = False
    # A tool from outside: what is wrong with the model's arguments by its JSON schema, as a
    # sentence (None when they fit), checked before any card asks a member.
    check_arguments: Callable[[dict[str, Any]], str | None] | None = None
    # A tool from outside: who provides it (a hash of its source, address and definition).
    # An approval or an "always allow" holds for that provider only; None for the bot's own.
    provider: str | None = None
    # How a call looks to members (title, labels, a sentence for the result); None shows the
    # name and the arguments as sent.
    look: Look | None = None
    # No side effect and no cost (listing, reading): no approval-style card, a status line.
    read_only: bool = False
    # The tool's own checks of a call, run before a card asks anyone (see ToolCheck).
    check: ToolCheck | None = None
    # Its answers carry words from outside (a web page, a plugin, a member's note): they reach
    # the model fenced, and later calls of the turn ask first. A function of the output says
    # so per answer (None: this answer carries none).
    untrusted: Untrusted | Callable[[Any], Untrusted | None] | None = None

    def untrusted_in(self, output: Any) -> Untrusted | None:
        """Where this answer's untrusted words come from, if it has any."""
        if callable(self.untrusted):
            return self.untrusted(output)
        return self.untrusted

    def __post_init__(self) -> None:
        if not TOOL_NAME_PATTERN.fullmatch(self.name):
            raise ValueError(
                f"tool name {self.name!r} must be 1-64 characters of letters, digits, _ . -"
            )
        if not 0 < self.timeout <= MAX_TIMEOUT_SECONDS:
            raise ValueError(
                f"tool {self.name!r} timeout {self.timeout} must be above 0 and at most "
                f"{MAX_TIMEOUT_SECONDS:g} seconds"
            )
        if self.parameters.get("type") != "object":
            raise ValueError(f"tool {self.name!r} parameters must be a JSON object schema")

    def schema(self) -> dict[str, Any]:
        """The OpenAI-style function schema sent to the model."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }

    def available_in(self, guild_id: int | None) -> bool:
        """Whether the tool is offered in this guild (None = a DM or the console)."""
        if guild_id is None and self.servers_only:
            return False
        return self.guild_id is None or self.guild_id == guild_id


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
