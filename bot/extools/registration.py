"""What a plugin may register: the body of `POST /api/tools/register`, validated field by field."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from bot.agent.tools import DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS, TOOL_NAME_PATTERN

# Names a plugin may not take: MCP tools are named by the bot from its own configuration.
RESERVED_PREFIX = "mcp."
MAX_DESCRIPTION_CHARS = 2000
MAX_SOURCE_CHARS = 100


class Refused(Exception):
    """A request the API refuses; `field` names what to fix, `status` is the HTTP status."""

    def __init__(self, field: str, sentence: str, status: int = 422) -> None:
        sentence = sentence if sentence.endswith(".") else sentence + "."
        super().__init__(sentence)
        self.field = field
        self.sentence = sentence
        self.status = status


@dataclass(frozen=True)
class Registration:
    """A validated registration: everything the bot needs to offer and call the tool."""

    name: str
    description: str
    parameters: dict[str, Any]
    callback_url: str
    source: str
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    handlers: tuple[str, ...] | None = None
    guild_id: int | None = None


def is_loopback_host(host: str | None) -> bool:
    """Whether host is 127.0.0.0/8, ::1 or the literal localhost."""
    if not host:
        return False
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_name(value: Any, field: str = "name") -> str:
    """A tool name within the name rule, or Refused naming the field."""
    if not isinstance(value, str) or not TOOL_NAME_PATTERN.fullmatch(value):
        raise Refused(
            field,
            f"{field} must be 1-64 characters of letters, digits, '_', '.' or '-' (got {value!r})",
        )
    return value


def check_source(value: Any) -> str:
    """A non-empty source tag."""
    if not isinstance(value, str) or not value.strip():
        raise Refused("source", "source is required: a short tag such as 'dice_plugin'")
    if len(value) > MAX_SOURCE_CHARS:
        raise Refused("source", f"source must be at most {MAX_SOURCE_CHARS} characters")
    return value.strip()


def parse_registration(body: dict[str, Any], handler_names: frozenset[str]) -> Registration:
    """Validate a register body; every problem is Refused with the field to fix."""
    name = check_name(body.get("name"))
    if name.startswith(RESERVED_PREFIX):
        raise Refused("name", f"name must not start with {RESERVED_PREFIX!r}: it is kept for MCP")
    description = body.get("description")
    if not isinstance(description, str) or not description.strip():
        raise Refused("description", "description is required: tell the model when to call it")
    if len(description) > MAX_DESCRIPTION_CHARS:
        raise Refused(
            "description", f"description must be at most {MAX_DESCRIPTION_CHARS} characters"
        )
    parameters = body.get("parameters", {"type": "object", "properties": {}})
    if not isinstance(parameters, dict) or parameters.get("type") != "object":
        raise Refused(
            "parameters",
            'parameters must be a JSON-schema object such as {"type": "object", '
            '"properties": {...}}',
        )
    callback_url = _check_callback(body.get("callback_url"))
    source = check_source(body.get("source"))
    timeout = body.get("timeout_seconds", DEFAULT_TIMEOUT_SECONDS)
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not 0 < timeout <= MAX_TIMEOUT_SECONDS
    ):
        raise Refused(
            "timeout_seconds",
            f"timeout_seconds must be a number above 0 and at most {MAX_TIMEOUT_SECONDS:g} "
            f"(got {timeout!r}); a longer job should answer at once and report later",
        )
    if body.get("role") is not None:
        raise Refused("role", "role is not used here: scope a tool with handlers and guild_id")
    return Registration(
        name=name,
        description=description.strip(),
        parameters=parameters,
        callback_url=callback_url,
        source=source,
        timeout_seconds=float(timeout),
        handlers=_check_handlers(body.get("handlers"), handler_names),
        guild_id=_check_guild(body.get("guild_id")),
    )


def _check_callback(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise Refused("callback_url", "callback_url is required: where the bot POSTs each call")
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Refused("callback_url", f"callback_url must be an http:// URL (got {value!r})")
    if not is_loopback_host(parts.hostname):
        raise Refused(
            "callback_url",
            f"callback_url must point at this machine (127.0.0.1, ::1 or localhost), not "
            f"{parts.hostname!r}: the bot never calls tools on other hosts",
        )
    return value


def _check_handlers(value: Any, known: frozenset[str]) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise Refused(
            "handlers", "handlers must be a non-empty list of handler names, or null for all"
        )
    unknown = sorted(set(value) - known)
    if unknown:
        raise Refused(
            "handlers",
            f"handlers has unknown names {unknown}: use some of {sorted(known)} or null",
        )
    return tuple(dict.fromkeys(value))


def _check_guild(value: Any) -> int | None:
    if value is None:
        return None
    try:
        guild = int(value)
    except (TypeError, ValueError):
        guild = 0
    if isinstance(value, bool) or guild <= 0:
        raise Refused("guild_id", f"guild_id must be a Discord server id or null (got {value!r})")
    return guild
