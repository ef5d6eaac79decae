"""What a plugin may register: the body of `POST /api/tools/register`, validated field by field.

Plugins are untrusted input: every value that reaches the database, a model request or a
Discord card is checked here first, and every problem is a Refused naming the field to fix.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import math
import re
from dataclasses import dataclass
from typing import Any

from yarl import URL

from bot.agent.tools import DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS, TOOL_NAME_PATTERN
from bot.extools.schemas import depth_of, schema_problem

# Names a plugin may not take: MCP tools are named by the bot from its own configuration.
RESERVED_PREFIX = "mcp."
MAX_DESCRIPTION_CHARS = 2000
# A source is shown on approval cards and names a plugin's credential: a short plain tag.
SOURCE_PATTERN = re.compile(r"^[A-Za-z0-9_.:-]{1,100}$")
MAX_URL_CHARS = 2048
# Nesting of a whole request body; a schema's own cap (schemas.MAX_SCHEMA_DEPTH) is lower.
MAX_BODY_DEPTH = 32
# Discord ids are 64-bit; the column is a BIGINT.
MAX_GUILD_ID = 2**63 - 1
_PRINTABLE_ASCII = re.compile(r"^[\x21-\x7e]+$")


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

    @property
    def definition_hash(self) -> str:
        """What the model and the card are shown, hashed: name, description and schema."""
        return definition_hash(self.name, self.description, self.parameters)


def definition_hash(name: str, description: str, parameters: dict[str, Any]) -> str:
    """SHA-256 of the tool's definition in a canonical JSON form (key order does not matter)."""
    canonical = json.dumps(
        {"name": name, "description": description, "parameters": parameters},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def provider_identity(source: str, address: str, definition: str) -> str:
    """Who provides a tool, as approvals and grants record it: its source, where it is called
    (a callback URL, an MCP server's command or URL) and its definition hash, hashed."""
    return hashlib.sha256(f"{source}\n{address}\n{definition}".encode()).hexdigest()


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


def body_problem(body: Any) -> tuple[str, str] | None:
    """(field, sentence) for a body that no field check should even see: nested too deeply,
    numbers that are not finite, text that no database stores; None when it is sound."""
    fields = [(str(key), value) for key, value in (body.items() if isinstance(body, dict) else [])]
    for field, value in fields:
        if depth_of(value, MAX_BODY_DEPTH) > MAX_BODY_DEPTH:
            return field, f"{field} nests more than {MAX_BODY_DEPTH} levels of objects and arrays"
    stack = list(fields)
    while stack:
        field, item = stack.pop()
        if isinstance(item, dict):
            stack.extend((field, k) for k in item)
            stack.extend((field, v) for v in item.values())
        elif isinstance(item, list):
            stack.extend((field, v) for v in item)
        elif isinstance(item, float) and not math.isfinite(item):
            return field, f"{field} holds a number that is not finite ({item}); use a real number"
        elif isinstance(item, str) and not _storable(item):
            return field, (
                f"{field} holds a NUL character or an unpaired surrogate (\\u0000, \\ud800…), "
                "which cannot be stored: send plain text"
            )
    return None


def _storable(text: str) -> bool:
    if "\x00" in text:
        return False
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def check_name(value: Any, field: str = "name") -> str:
    """A tool name within the name rule, or Refused naming the field."""
    if not isinstance(value, str) or not TOOL_NAME_PATTERN.fullmatch(value):
        shown = value if not isinstance(value, str) else value[:80]
        raise Refused(
            field,
            f"{field} must be 1-64 characters of letters, digits, '_', '.' or '-' (got {shown!r})",
        )
    return value


def check_source(value: Any) -> str:
    """A source tag: 1-100 letters, digits, '_', '.', ':' or '-'."""
    if not isinstance(value, str) or not value.strip():
        raise Refused("source", "source is required: a short tag such as 'dice_plugin'")
    source = value.strip()
    if not SOURCE_PATTERN.fullmatch(source):
        raise Refused(
            "source",
            f"source must be 1-100 letters, digits, '_', '.', ':' or '-' (got {source[:100]!r})",
        )
    return source


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
    problem = schema_problem(parameters)
    if problem is not None:
        raise Refused("parameters", problem)
    callback_url = check_callback(body.get("callback_url"))
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
            f"(got {timeout!r:.40}); a longer job should answer at once and report later",
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


def check_callback(value: Any) -> str:
    """A callback URL on this machine, parsed the way the HTTP client will parse it."""
    if not isinstance(value, str) or not value:
        raise Refused("callback_url", "callback_url is required: where the bot POSTs each call")
    if len(value) > MAX_URL_CHARS or not _PRINTABLE_ASCII.fullmatch(value):
        raise Refused(
            "callback_url",
            f"callback_url must be a URL of at most {MAX_URL_CHARS} printable ASCII characters, "
            "without spaces, such as http://127.0.0.1:9876/invoke",
        )
    try:
        # yarl is what aiohttp connects with: checking its reading leaves no second opinion.
        url = URL(value)
        host = url.host
        url.port  # noqa: B018 - a port out of range raises here, not at the first call
    except ValueError as exc:
        raise Refused("callback_url", f"callback_url is not a valid URL ({exc})") from None
    if url.scheme not in ("http", "https") or not host:
        raise Refused("callback_url", f"callback_url must be an http:// URL (got {value[:100]!r})")
    if url.user is not None or url.password is not None:
        raise Refused(
            "callback_url",
            "callback_url must not carry a user name or password: admins and GET /api/tools "
            "see it; check who calls with the request itself",
        )
    if not is_loopback_host(host):
        raise Refused(
            "callback_url",
            f"callback_url must point at this machine (127.0.0.1, ::1 or localhost), not "
            f"{host[:100]!r}: the bot never calls tools on other hosts",
        )
    return value


def shown_url(url: str) -> str:
    """A callback URL as listings show it: no user name or password, query values hidden."""
    try:
        parsed = URL(url)
        shown = str(parsed.with_user(None).with_query(None).with_fragment(None))
        if parsed.query:
            shown += "?" + "&".join(f"{key}=…" for key in parsed.query)
        return shown
    except ValueError:
        return "(not shown)"


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
            f"handlers has unknown names {unknown[:5]}: use some of {sorted(known)} or null",
        )
    return tuple(dict.fromkeys(value))


def _check_guild(value: Any) -> int | None:
    if value is None:
        return None
    guild = 0
    if isinstance(value, int) and not isinstance(value, bool):
        guild = value
    elif isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 20:
        guild = int(value)
    if not 0 < guild <= MAX_GUILD_ID:
        raise Refused(
            "guild_id", f"guild_id must be a Discord server id or null (got {value!r:.40})"
        )
    return guild
