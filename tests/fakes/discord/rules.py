"""Discord's rules and limits, so the bot meets them here before it meets Discord.

Message and command validation, Discord-shaped error bodies, rate-limit windows and headers,
message nonces, and the deadlines of interactions.
"""

from __future__ import annotations

import hashlib
import math
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.discord.records import UploadedFile
from tests.fakes.discord.world import (
    CALLBACK_DEFERRED_UPDATE_MESSAGE,
    CALLBACK_UPDATE_MESSAGE,
    FLAG_COMPONENTS_V2,
    INTERACTION_MESSAGE_COMPONENT,
    INTERACTION_MODAL_SUBMIT,
    Json,
)

# Discord's limits that the fake enforces, so the bot meets them here before it meets Discord.
CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBED_TOTAL_MAX = 6000
EMBED_FIELD_LIMITS = {"title": 256, "description": 4096}
ACTION_ROWS_MAX = 5
ROW_BUTTONS_MAX = 5
CUSTOM_ID_MAX = 100
BUTTON_LABEL_MAX = 80
ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024

# Discord forgets an unanswered interaction after 3 seconds and its webhook token after
# 15 minutes; a nonce sent with enforce_nonce is remembered for a few minutes.
INTERACTION_DEADLINE = 3.0
INTERACTION_TOKEN_TTL = 15 * 60
NONCE_WINDOW = 5 * 60

ERROR_MESSAGES: dict[int, str] = {
    10002: "Unknown Application",
    10003: "Unknown Channel",
    10004: "Unknown Guild",
    10008: "Unknown Message",
    10013: "Unknown User",
    10015: "Unknown Webhook",
    10062: "Unknown interaction",
    40060: "Interaction has already been acknowledged.",
    50001: "Missing Access",
    50005: "Cannot edit a message authored by another user",
    50006: "Cannot send an empty message",
    50007: "Cannot send messages to this user",
    50013: "Missing Permissions",
    50027: "Invalid Webhook Token",
    50035: "Invalid Form Body",
}
STATUS_TEXT = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}

_COMMAND_NAME = re.compile(r"^[-_\w]{1,32}$")


# ---------------------------------------------------------------------------------------------
# Error bodies.
# ---------------------------------------------------------------------------------------------


@dataclass
class RestReply:
    """A REST answer before it becomes an aiohttp response (so it can be recorded)."""

    status: int
    data: Any = None
    headers: dict[str, str] = field(default_factory=dict)


def error_reply(
    status: int, code: int = 0, message: str | None = None, errors: Json | None = None
) -> RestReply:
    """A Discord-shaped error body."""
    if message is None:
        message = ERROR_MESSAGES.get(code) or f"{status}: {STATUS_TEXT.get(status, 'Error')}"
    data: Json = {"message": message, "code": code}
    if errors is not None:
        data["errors"] = errors
    return RestReply(status, data)


def form_error(path: Sequence[str | int], code: str, message: str) -> RestReply:
    """400 Invalid Form Body pointing at one field, the way Discord nests ``errors``."""
    errors: Json = {"_errors": [{"code": code, "message": message}]}
    for key in reversed(path):
        errors = {str(key): errors}
    return error_reply(400, 50035, errors=errors)


# ---------------------------------------------------------------------------------------------
# Rate limits.
# ---------------------------------------------------------------------------------------------


@dataclass
class RateWindow:
    """A fixed rate-limit window like Discord's buckets: ``per`` requests, then wait for reset."""

    per: int
    seconds: float
    started: float = -math.inf
    used: int = 0

    def take(self, now: float) -> tuple[bool, int, float]:
        """Use one slot; returns (allowed, remaining, seconds until reset)."""
        if now >= self.started + self.seconds:
            self.started, self.used = now, 0
        reset_after = self.started + self.seconds - now
        if self.used >= self.per:
            return False, 0, reset_after
        self.used += 1
        return True, self.per - self.used, reset_after


def bucket_hash(name: str) -> str:
    """A stable opaque bucket id like Discord's ``X-RateLimit-Bucket``."""
    return hashlib.sha1(name.encode()).hexdigest()[:16]


def ratelimit_headers(
    limit: int, remaining: int, reset_after: float, bucket: str
) -> dict[str, str]:
    """Discord's rate-limit headers; Reset-After is rounded up so a client never wakes early."""
    reset_after = math.ceil(max(reset_after, 0.0) * 1000) / 1000
    return {
        "X-RateLimit-Limit": str(limit),
        "X-RateLimit-Remaining": str(remaining),
        "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
        "X-RateLimit-Reset-After": f"{reset_after:.3f}",
        "X-RateLimit-Bucket": bucket,
    }


def too_many_requests(
    retry_after: float, *, global_: bool, scope: str, headers: dict[str, str]
) -> RestReply:
    """A 429 that discord.py retries: JSON body and a ``Via`` header (else it assumes a CF ban)."""
    retry_after = math.ceil(max(retry_after, 0.0) * 1000) / 1000
    headers = dict(headers)
    headers.update(
        {
            "Via": "1.1 google",
            "Retry-After": str(max(1, math.ceil(retry_after))),
            "X-RateLimit-Scope": scope,
        }
    )
    if global_:
        headers["X-RateLimit-Global"] = "true"
    body = {
        "message": "You are being rate limited.",
        "retry_after": retry_after,
        "global": global_,
        "code": 0,
    }
    return RestReply(429, body, headers)


# ---------------------------------------------------------------------------------------------
# Message and command validation.
# ---------------------------------------------------------------------------------------------


def walk_components(components: Iterable[Json]) -> Iterable[Json]:
    """Every component inside rows, containers, sections and labels."""
    for component in components:
        yield component
        yield from walk_components(component.get("components") or [])
        for key in ("accessory", "component"):
            if isinstance(component.get(key), dict):
                yield from walk_components([component[key]])


def validate_message(
    body: Json, files: Sequence[UploadedFile], *, creating: bool
) -> RestReply | None:
    """Discord's checks on a message body that bots most often trip over."""
    content = body.get("content")
    if content is not None and len(str(content)) > CONTENT_MAX:
        return form_error(
            ["content"], "BASE_TYPE_MAX_LENGTH", f"Must be {CONTENT_MAX} or fewer in length."
        )
    embeds = body.get("embeds") or []
    if len(embeds) > EMBEDS_MAX:
        return form_error(
            ["embeds"], "BASE_TYPE_MAX_LENGTH", f"Must be {EMBEDS_MAX} or fewer in length."
        )
    total = 0
    for index, embed in enumerate(embeds):
        for key, limit in EMBED_FIELD_LIMITS.items():
            text = embed.get(key) or ""
            total += len(text)
            if len(text) > limit:
                return form_error(
                    ["embeds", index, key],
                    "BASE_TYPE_MAX_LENGTH",
                    f"Must be {limit} or fewer in length.",
                )
        for embed_field in embed.get("fields") or []:
            total += len(embed_field.get("name") or "") + len(embed_field.get("value") or "")
        total += len((embed.get("footer") or {}).get("text") or "")
        total += len((embed.get("author") or {}).get("name") or "")
    if total > EMBED_TOTAL_MAX:
        return form_error(
            ["embeds"],
            "MAX_EMBED_SIZE_EXCEEDED",
            f"Embed size exceeds maximum size of {EMBED_TOTAL_MAX}",
        )
    components = body.get("components") or []
    if not int(body.get("flags") or 0) & FLAG_COMPONENTS_V2:
        if len(components) > ACTION_ROWS_MAX:
            return form_error(
                ["components"],
                "BASE_TYPE_MAX_LENGTH",
                f"Must be {ACTION_ROWS_MAX} or fewer in length.",
            )
        for index, row in enumerate(components):
            if len(row.get("components") or []) > ROW_BUTTONS_MAX:
                return form_error(
                    ["components", index, "components"],
                    "BASE_TYPE_MAX_LENGTH",
                    f"Must be {ROW_BUTTONS_MAX} or fewer in length.",
                )
    for component in walk_components(components):
        if len(component.get("custom_id") or "") > CUSTOM_ID_MAX:
            return form_error(
                ["components"],
                "BASE_TYPE_MAX_LENGTH",
                f"custom_id must be {CUSTOM_ID_MAX} or fewer in length.",
            )
        if len(component.get("label") or "") > BUTTON_LABEL_MAX:
            return form_error(
                ["components"],
                "BASE_TYPE_MAX_LENGTH",
                f"label must be {BUTTON_LABEL_MAX} or fewer in length.",
            )
    if creating and not (
        content or embeds or files or components or body.get("sticker_ids") or body.get("poll")
    ):
        return error_reply(400, 50006)
    return None


def validate_commands(commands: Sequence[Json]) -> RestReply | None:
    """Discord's rules for application command names, descriptions and option counts."""
    seen: set[tuple[str, int]] = set()
    for index, command in enumerate(commands):
        kind = int(command.get("type", 1))
        key = (str(command.get("name")), kind)
        if key in seen:
            return form_error(
                [index, "name"],
                "APPLICATION_COMMANDS_DUPLICATE_NAME",
                "Application command names must be unique",
            )
        seen.add(key)
        error = _validate_command_entry(command, [index], chat_input=kind == 1)
        if error is not None:
            return error
    return None


def _validate_command_entry(
    entry: Json, path: list[str | int], *, chat_input: bool
) -> RestReply | None:
    """Check one command or option, recursing into sub-options."""
    name = str(entry.get("name") or "")
    if chat_input and (not _COMMAND_NAME.match(name) or name != name.lower()):
        return form_error(
            [*path, "name"],
            "APPLICATION_COMMAND_INVALID_NAME",
            f"Command name is invalid: {name!r}",
        )
    description = str(entry.get("description") or "")
    if chat_input and not 1 <= len(description) <= 100:
        return form_error(
            [*path, "description"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length."
        )
    for locale, text in (entry.get("description_localizations") or {}).items():
        if chat_input and not 1 <= len(str(text)) <= 100:
            return form_error(
                [*path, "description_localizations", locale],
                "BASE_TYPE_BAD_LENGTH",
                "Must be between 1 and 100 in length.",
            )
    for locale, text in (entry.get("name_localizations") or {}).items():
        if chat_input and (not _COMMAND_NAME.match(str(text)) or text != str(text).lower()):
            return form_error(
                [*path, "name_localizations", locale],
                "APPLICATION_COMMAND_INVALID_NAME",
                f"Command name is invalid: {text!r}",
            )
    options = entry.get("options") or []
    if len(options) > 25:
        return form_error(
            [*path, "options"], "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."
        )
    if len(entry.get("choices") or []) > 25:
        return form_error(
            [*path, "choices"], "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."
        )
    for index, option in enumerate(options):
        error = _validate_command_entry(option, [*path, "options", index], chat_input=chat_input)
        if error is not None:
            return error
    return None


# ---------------------------------------------------------------------------------------------
# Interactions and nonces.
# ---------------------------------------------------------------------------------------------


def check_callback_type(
    kind: int, interaction_type: int, source_message_id: int | None
) -> RestReply | None:
    """Discord's error for a callback type that this interaction cannot use, else None."""
    # Updating "the message" needs one: a component's message (or a modal opened from one);
    # a bare acknowledgement (6) is also fine for any modal submit, never for a command.
    if (kind == CALLBACK_UPDATE_MESSAGE and source_message_id is None) or (
        kind == CALLBACK_DEFERRED_UPDATE_MESSAGE
        and interaction_type not in (INTERACTION_MESSAGE_COMPONENT, INTERACTION_MODAL_SUBMIT)
    ):
        return form_error(
            ["type"], "INTERACTION_RESPONSE_TYPE_INVALID", "Invalid interaction response type"
        )
    return None


class NonceLedger:
    """Nonces sent with ``enforce_nonce``: a repeat within the window gets the first message."""

    def __init__(self) -> None:
        self._seen: dict[tuple[int, str], tuple[int, float]] = {}

    def earlier(self, author_id: int, nonce: str, window: float) -> int | None:
        """The message first posted with this nonce, if that was at most ``window`` s ago."""
        seen = self._seen.get((author_id, nonce))
        if seen is not None and time.monotonic() - seen[1] <= window:
            return seen[0]
        return None

    def remember(self, author_id: int, nonce: str, message_id: int) -> None:
        """Note the message posted with this nonce now."""
        self._seen[(author_id, nonce)] = (message_id, time.monotonic())
