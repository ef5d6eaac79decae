"""An offline fake Discord (REST + gateway) on 127.0.0.1 for the real discord.py client.

The bot reaches it through ``discord.http.Route.BASE = fake.api_base`` and
``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(fake.gateway_url)``
(:func:`point_discord_py_at` does both for in-process tests; a bot subprocess gets the two URLs
through its settings). All state lives in the :class:`FakeDiscord` object in the test process:
tests drive users (messages, clicks, slash commands, modals) with its ``async`` helpers and
await what the bot did with ``wait_for_message`` / ``wait_for_request`` / ``wait_until``.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import hashlib
import json
import math
import mimetypes
import re
import secrets
import socket
import time
import zlib
from collections import Counter, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from aiohttp import BodyPartReader, WSMsgType, web

Json = dict[str, Any]
_T = TypeVar("_T")

DISCORD_EPOCH_MS = 1_420_070_400_000

# Gateway opcodes (API v10).
OP_DISPATCH = 0
OP_HEARTBEAT = 1
OP_IDENTIFY = 2
OP_PRESENCE_UPDATE = 3
OP_VOICE_STATE_UPDATE = 4
OP_RESUME = 6
OP_RECONNECT = 7
OP_REQUEST_GUILD_MEMBERS = 8
OP_INVALID_SESSION = 9
OP_HELLO = 10
OP_HEARTBEAT_ACK = 11

# Intents that change what the fake sends, as on the real gateway.
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_PRESENCES = 1 << 8
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_MESSAGE_CONTENT = 1 << 15
PRIVILEGED_INTENTS = INTENT_GUILD_MEMBERS | INTENT_GUILD_PRESENCES | INTENT_MESSAGE_CONTENT

# Permission bits used by the default world.
ADMINISTRATOR = 1 << 3
MANAGE_GUILD = 1 << 5
ADD_REACTIONS = 1 << 6
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
MANAGE_MESSAGES = 1 << 13
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
USE_EXTERNAL_EMOJIS = 1 << 18
CHANGE_NICKNAME = 1 << 26
USE_APPLICATION_COMMANDS = 1 << 31
CREATE_PUBLIC_THREADS = 1 << 35
SEND_MESSAGES_IN_THREADS = 1 << 38
# Discord sends every bit for administrators and owners; 51 bits covers today's permissions.
ALL_PERMISSIONS = (1 << 51) - 1
EVERYONE_PERMISSIONS = (
    VIEW_CHANNEL
    | SEND_MESSAGES
    | READ_MESSAGE_HISTORY
    | ADD_REACTIONS
    | EMBED_LINKS
    | ATTACH_FILES
    | USE_EXTERNAL_EMOJIS
    | USE_APPLICATION_COMMANDS
    | CREATE_PUBLIC_THREADS
    | SEND_MESSAGES_IN_THREADS
    | CHANGE_NICKNAME
)
BOT_PERMISSIONS = EVERYONE_PERMISSIONS | MANAGE_MESSAGES

# Message flags.
FLAG_SUPPRESS_EMBEDS = 1 << 2
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7
FLAG_COMPONENTS_V2 = 1 << 15

# Message types.
MESSAGE_DEFAULT = 0
MESSAGE_REPLY = 19
MESSAGE_CHAT_INPUT_COMMAND = 20

# Interaction types and interaction callback types.
INTERACTION_APPLICATION_COMMAND = 2
INTERACTION_MESSAGE_COMPONENT = 3
INTERACTION_AUTOCOMPLETE = 4
INTERACTION_MODAL_SUBMIT = 5
CALLBACK_PONG = 1
CALLBACK_CHANNEL_MESSAGE = 4
CALLBACK_DEFERRED_CHANNEL_MESSAGE = 5
CALLBACK_DEFERRED_UPDATE_MESSAGE = 6
CALLBACK_UPDATE_MESSAGE = 7
CALLBACK_AUTOCOMPLETE_RESULT = 8
CALLBACK_MODAL = 9

# Application command option types.
OPTION_SUB_COMMAND = 1
OPTION_SUB_COMMAND_GROUP = 2
OPTION_STRING = 3
OPTION_INTEGER = 4
OPTION_BOOLEAN = 5
OPTION_USER = 6
OPTION_CHANNEL = 7
OPTION_ROLE = 8
OPTION_MENTIONABLE = 9
OPTION_NUMBER = 10
OPTION_ATTACHMENT = 11

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
_STATUS_TEXT = {
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

# Stable ids of the default world (snowflakes from 2023, far below any runtime id).
GUILD_ID = 1_100_000_000_000_000_001
BOT_ID = 1_200_000_000_000_000_001  # also the application id, as for every bot made since 2019
HANA_ID = 1_200_000_000_000_000_002  # member with the plain "Member" role
TARO_ID = 1_200_000_000_000_000_003  # member with no role but @everyone
ADMIN_ID = 1_200_000_000_000_000_004  # "kenji": Admin role and guild owner
GENERAL_CHANNEL_ID = 1_300_000_000_000_000_001
RANDOM_CHANNEL_ID = 1_300_000_000_000_000_002
THREAD_ID = 1_300_000_000_000_000_003  # a public thread under #general
ADMIN_ROLE_ID = 1_400_000_000_000_000_001
MEMBER_ROLE_ID = 1_400_000_000_000_000_002
BOT_ROLE_ID = 1_400_000_000_000_000_003  # the managed role Discord gives every bot
EVERYONE_ROLE_ID = GUILD_ID  # Discord's rule: @everyone shares the guild's id

_USER_MENTION = re.compile(r"<@!?(\d+)>")
_ROLE_MENTION = re.compile(r"<@&(\d+)>")
_EVERYONE_MENTION = re.compile(r"@(?:everyone|here)\b")
_API_PATH = re.compile(r"^/api/v(?P<version>\d+)(?P<path>/.*)$")
_FILE_FIELD = re.compile(r"^files\[(\d+)\]$")
_COMMAND_NAME = re.compile(r"^[-_\w]{1,32}$")


def _iso(epoch: float) -> str:
    """Discord's ISO-8601 timestamp for a Unix time."""
    return datetime.fromtimestamp(epoch, UTC).isoformat()


def _ids(values: Iterable[Any]) -> list[int]:
    """Snowflakes from a JSON list that may hold strings or numbers."""
    return [int(v) for v in values]


# ---------------------------------------------------------------------------------------------
# The world: one guild, its channels, roles and members, and the bot.
# ---------------------------------------------------------------------------------------------


@dataclass
class FakeUser:
    """A Discord user as the fake presents it."""

    id: int
    username: str
    global_name: str | None = None
    bot: bool = False

    def payload(self) -> Json:
        """The user object Discord sends."""
        data: Json = {
            "id": str(self.id),
            "username": self.username,
            "discriminator": "0",
            "global_name": self.global_name,
            "avatar": None,
            "public_flags": 0,
        }
        if self.bot:
            data["bot"] = True
        return data


@dataclass
class FakeRole:
    """A guild role; ``bot_id`` marks the managed role of a bot."""

    id: int
    name: str
    permissions: int
    position: int = 0
    mentionable: bool = False
    bot_id: int | None = None

    def payload(self) -> Json:
        """The role object Discord sends."""
        data: Json = {
            "id": str(self.id),
            "name": self.name,
            "permissions": str(self.permissions),
            "position": self.position,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "managed": self.bot_id is not None,
            "mentionable": self.mentionable,
            "flags": 0,
        }
        if self.bot_id is not None:
            data["tags"] = {"bot_id": str(self.bot_id)}
        return data


@dataclass
class FakeChannel:
    """A guild text channel (type 0) or public thread (type 11, with ``parent_id``)."""

    id: int
    name: str
    type: int = 0
    position: int = 0
    parent_id: int | None = None
    topic: str | None = None
    owner_id: int | None = None


@dataclass
class FakeMember:
    """A guild member: a user id plus its role ids (@everyone is implied)."""

    user_id: int
    role_ids: list[int] = field(default_factory=list)
    nick: str | None = None


@dataclass
class World:
    """Everything the fake guild holds; mutate a ``World.default()`` to override pieces."""

    guild_id: int
    guild_name: str
    owner_id: int
    bot: FakeUser
    users: list[FakeUser]
    roles: list[FakeRole]
    channels: list[FakeChannel]
    members: list[FakeMember]
    locale: str = "ja"
    joined_at: str = "2024-01-01T00:00:00+00:00"

    @classmethod
    def default(cls) -> World:
        """Guild "Otomo Test" with #general, #random, a thread, three people and the bot."""
        bot = FakeUser(BOT_ID, "Otomo", None, bot=True)
        users = [
            FakeUser(HANA_ID, "hana", "Hana"),
            FakeUser(TARO_ID, "taro", "Taro"),
            FakeUser(ADMIN_ID, "kenji", "Kenji"),
        ]
        roles = [
            FakeRole(EVERYONE_ROLE_ID, "@everyone", EVERYONE_PERMISSIONS, position=0),
            FakeRole(MEMBER_ROLE_ID, "Member", EVERYONE_PERMISSIONS, position=1, mentionable=True),
            FakeRole(ADMIN_ROLE_ID, "Admin", ADMINISTRATOR | MANAGE_GUILD, position=3),
            FakeRole(BOT_ROLE_ID, "Otomo", BOT_PERMISSIONS, position=2, bot_id=BOT_ID),
        ]
        channels = [
            FakeChannel(GENERAL_CHANNEL_ID, "general", position=0, topic="雑談"),
            FakeChannel(RANDOM_CHANNEL_ID, "random", position=1),
            FakeChannel(
                THREAD_ID, "reminders", type=11, parent_id=GENERAL_CHANNEL_ID, owner_id=HANA_ID
            ),
        ]
        members = [
            FakeMember(HANA_ID, [MEMBER_ROLE_ID]),
            FakeMember(TARO_ID, []),
            FakeMember(ADMIN_ID, [ADMIN_ROLE_ID]),
            FakeMember(BOT_ID, [BOT_ROLE_ID]),
        ]
        return cls(GUILD_ID, "Otomo Test", ADMIN_ID, bot, users, roles, channels, members)

    def user(self, user_id: int) -> FakeUser | None:
        """The user (or the bot) with this id."""
        if user_id == self.bot.id:
            return self.bot
        return next((u for u in self.users if u.id == user_id), None)

    def member(self, user_id: int) -> FakeMember | None:
        """The guild member with this user id."""
        return next((m for m in self.members if m.user_id == user_id), None)

    def role(self, role_id: int) -> FakeRole | None:
        """The role with this id."""
        return next((r for r in self.roles if r.id == role_id), None)

    def channel(self, channel_id: int) -> FakeChannel | None:
        """The guild channel or thread with this id."""
        return next((c for c in self.channels if c.id == channel_id), None)

    def permissions(self, user_id: int) -> int:
        """Guild-level permissions, computed like Discord (no channel overwrites in this world)."""
        if user_id == self.owner_id:
            return ALL_PERMISSIONS
        member = self.member(user_id)
        if member is None:
            return 0
        everyone = self.role(self.guild_id)
        perms = everyone.permissions if everyone else 0
        for role_id in member.role_ids:
            role = self.role(role_id)
            perms |= role.permissions if role else 0
        return ALL_PERMISSIONS if perms & ADMINISTRATOR else perms

    def member_payload(
        self, user_id: int, *, with_user: bool = True, with_permissions: bool = False
    ) -> Json | None:
        """The guild member object, or None for someone outside the guild."""
        member = self.member(user_id)
        user = self.user(user_id)
        if member is None or user is None:
            return None
        data: Json = {
            "roles": [str(r) for r in member.role_ids],
            "nick": member.nick,
            "avatar": None,
            "banner": None,
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = user.payload()
        if with_permissions:
            data["permissions"] = str(self.permissions(user_id))
        return data

    def channel_payload(self, channel: FakeChannel, *, for_user: int | None = None) -> Json:
        """The channel object; ``for_user`` adds the resolved ``permissions`` like interactions."""
        data: Json = {
            "id": str(channel.id),
            "type": channel.type,
            "guild_id": str(self.guild_id),
            "name": channel.name,
            "parent_id": str(channel.parent_id) if channel.parent_id else None,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "flags": 0,
            "nsfw": False,
        }
        if channel.type in (10, 11, 12):
            data.update(
                owner_id=str(channel.owner_id or self.owner_id),
                message_count=0,
                member_count=len(self.members),
                total_message_sent=0,
                thread_metadata={
                    "archived": False,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": self.joined_at,
                    "locked": False,
                    "create_timestamp": self.joined_at,
                },
            )
        else:
            data.update(position=channel.position, topic=channel.topic, permission_overwrites=[])
        if for_user is not None:
            data["permissions"] = str(self.permissions(for_user))
        return data

    def guild_payload(self) -> Json:
        """The guild object of ``GET /guilds/{id}``."""
        return {
            "id": str(self.guild_id),
            "name": self.guild_name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 1,
            "explicit_content_filter": 0,
            "roles": [r.payload() for r in self.roles],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "system_channel_id": str(self.channels[0].id) if self.channels else None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": self.locale,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
        }

    def guild_create_payload(self, *, with_members: bool) -> Json:
        """GUILD_CREATE; without GUILD_MEMBERS only the bot's own member comes, as on Discord."""
        members = [
            self.member_payload(m.user_id)
            for m in self.members
            if with_members or m.user_id == self.bot.id
        ]
        data = self.guild_payload()
        data.update(
            joined_at=self.joined_at,
            large=False,
            unavailable=False,
            # member_count == len(members) marks the guild "chunked": no REQUEST_MEMBERS needed.
            member_count=len(self.members),
            members=members,
            channels=[self.channel_payload(c) for c in self.channels if c.type not in (10, 11, 12)],
            threads=[self.channel_payload(c) for c in self.channels if c.type in (10, 11, 12)],
            voice_states=[],
            presences=[],
            stage_instances=[],
            guild_scheduled_events=[],
            soundboard_sounds=[],
        )
        return data


# ---------------------------------------------------------------------------------------------
# Records the tests read.
# ---------------------------------------------------------------------------------------------


@dataclass
class UploadedFile:
    """A file part of a multipart request."""

    field: str
    filename: str
    content_type: str | None
    data: bytes


@dataclass
class RecordedRequest:
    """One REST request the bot made, and what the fake answered."""

    method: str
    path: str  # below the API base, e.g. "/channels/123/messages"; "/cdn/..." for downloads
    query: dict[str, str]
    json: Any
    files: list[UploadedFile]
    headers: dict[str, str]
    at: float  # time.monotonic()
    status: int = 0
    response: Any = None
    route: str | None = None  # the matched route template; None for unknown routes

    def __str__(self) -> str:
        return f"{self.method} {self.path} -> {self.status}"


@dataclass
class Fault:
    """An injected failure: the next ``times`` matching requests get ``status``."""

    method: str
    pattern: re.Pattern[str]
    status: int
    times: int | None
    retry_after: float
    global_: bool
    code: int
    message: str
    served: int = 0

    def matches(self, method: str, path: str) -> bool:
        """True if this fault applies to the request and is not used up."""
        if self.times is not None and self.served >= self.times:
            return False
        return self.method in ("*", method) and self.pattern.fullmatch(path) is not None


@dataclass
class _Window:
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


class InteractionRecord:
    """One interaction the fake dispatched, with the bot's callback, followups and edits."""

    def __init__(self, fake: FakeDiscord, payload: Json, source_message_id: int | None) -> None:
        self._fake = fake
        self.payload = payload
        self.id = int(payload["id"])
        self.token: str = payload["token"]
        self.type: int = payload["type"]
        self.channel_id = int(payload["channel_id"])
        user = payload.get("member", {}).get("user") or payload.get("user") or {}
        self.user_id = int(user["id"])
        self.source_message_id = source_message_id
        self.created_at = time.monotonic()
        self.response: Json | None = None  # the accepted callback body: {"type": ..., "data": ...}
        self.response_status: int | None = None
        self.callback_attempts: list[tuple[int, Json]] = []  # (status served, body) for every try
        self.deadline_missed = False
        self.original_message_id: int | None = None
        self.followups: list[Json] = []
        self.original_edits: list[Json] = []

    def __repr__(self) -> str:
        return f"<InteractionRecord id={self.id} type={self.type} response={self.response_type}>"

    @property
    def response_type(self) -> int | None:
        """The accepted callback type (4, 5, 6, 7, 8 or 9), or None."""
        return None if self.response is None else self.response.get("type")

    async def wait_response(self, timeout: float = 5.0) -> Json:  # noqa: ASYNC109
        """The initial callback body once the bot sent one that the fake accepted."""
        return await self._fake.wait_until(
            lambda: self.response, timeout, what=f"a callback to interaction {self.id}"
        )

    async def wait_followup(self, count: int = 1, timeout: float = 5.0) -> Json:  # noqa: ASYNC109
        """The ``count``-th followup message (1-based)."""
        await self._fake.wait_until(
            lambda: len(self.followups) >= count,
            timeout,
            what=f"{count} followup(s) to interaction {self.id}",
        )
        return self.followups[count - 1]

    async def wait_original_edit(self, count: int = 1, timeout: float = 5.0) -> Json:  # noqa: ASYNC109
        """The ``count``-th edit of ``@original`` (1-based), as the bot sent it."""
        await self._fake.wait_until(
            lambda: len(self.original_edits) >= count,
            timeout,
            what=f"{count} edit(s) of interaction {self.id}'s @original",
        )
        return self.original_edits[count - 1]

    def original_message(self) -> Json | None:
        """The current ``@original`` message, if the response created or targeted one."""
        if self.original_message_id is None:
            return None
        return self._fake.message(self.original_message_id)


@dataclass
class _Reply:
    """A REST answer before it becomes an aiohttp response (so it can be recorded)."""

    status: int
    data: Any = None
    headers: dict[str, str] = field(default_factory=dict)


def _error(
    status: int, code: int = 0, message: str | None = None, errors: Json | None = None
) -> _Reply:
    """A Discord-shaped error body."""
    if message is None:
        message = ERROR_MESSAGES.get(code) or f"{status}: {_STATUS_TEXT.get(status, 'Error')}"
    data: Json = {"message": message, "code": code}
    if errors is not None:
        data["errors"] = errors
    return _Reply(status, data)


def _form_error(path: Sequence[str | int], code: str, message: str) -> _Reply:
    """400 Invalid Form Body pointing at one field, the way Discord nests ``errors``."""
    errors: Json = {"_errors": [{"code": code, "message": message}]}
    for key in reversed(path):
        errors = {str(key): errors}
    return _error(400, 50035, errors=errors)


def _bucket_hash(name: str) -> str:
    """A stable opaque bucket id like Discord's ``X-RateLimit-Bucket``."""
    return hashlib.sha1(name.encode()).hexdigest()[:16]


def _ratelimit_headers(
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


def _too_many(retry_after: float, *, global_: bool, scope: str, headers: dict[str, str]) -> _Reply:
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
    return _Reply(429, body, headers)


def _walk_components(components: Iterable[Json]) -> Iterable[Json]:
    """Every component inside rows, containers, sections and labels."""
    for component in components:
        yield component
        yield from _walk_components(component.get("components") or [])
        for key in ("accessory", "component"):
            if isinstance(component.get(key), dict):
                yield from _walk_components([component[key]])


def _validate_message(
    body: Json, files: Sequence[UploadedFile], *, creating: bool
) -> _Reply | None:
    """Discord's checks on a message body that bots most often trip over."""
    content = body.get("content")
    if content is not None and len(str(content)) > CONTENT_MAX:
        return _form_error(
            ["content"], "BASE_TYPE_MAX_LENGTH", f"Must be {CONTENT_MAX} or fewer in length."
        )
    embeds = body.get("embeds") or []
    if len(embeds) > EMBEDS_MAX:
        return _form_error(
            ["embeds"], "BASE_TYPE_MAX_LENGTH", f"Must be {EMBEDS_MAX} or fewer in length."
        )
    total = 0
    for index, embed in enumerate(embeds):
        for key, limit in EMBED_FIELD_LIMITS.items():
            text = embed.get(key) or ""
            total += len(text)
            if len(text) > limit:
                return _form_error(
                    ["embeds", index, key],
                    "BASE_TYPE_MAX_LENGTH",
                    f"Must be {limit} or fewer in length.",
                )
        for embed_field in embed.get("fields") or []:
            total += len(embed_field.get("name") or "") + len(embed_field.get("value") or "")
        total += len((embed.get("footer") or {}).get("text") or "")
        total += len((embed.get("author") or {}).get("name") or "")
    if total > EMBED_TOTAL_MAX:
        return _form_error(
            ["embeds"],
            "MAX_EMBED_SIZE_EXCEEDED",
            f"Embed size exceeds maximum size of {EMBED_TOTAL_MAX}",
        )
    components = body.get("components") or []
    if not int(body.get("flags") or 0) & FLAG_COMPONENTS_V2:
        if len(components) > ACTION_ROWS_MAX:
            return _form_error(
                ["components"],
                "BASE_TYPE_MAX_LENGTH",
                f"Must be {ACTION_ROWS_MAX} or fewer in length.",
            )
        for index, row in enumerate(components):
            if len(row.get("components") or []) > ROW_BUTTONS_MAX:
                return _form_error(
                    ["components", index, "components"],
                    "BASE_TYPE_MAX_LENGTH",
                    f"Must be {ROW_BUTTONS_MAX} or fewer in length.",
                )
    for component in _walk_components(components):
        if len(component.get("custom_id") or "") > CUSTOM_ID_MAX:
            return _form_error(
                ["components"],
                "BASE_TYPE_MAX_LENGTH",
                f"custom_id must be {CUSTOM_ID_MAX} or fewer in length.",
            )
        if len(component.get("label") or "") > BUTTON_LABEL_MAX:
            return _form_error(
                ["components"],
                "BASE_TYPE_MAX_LENGTH",
                f"label must be {BUTTON_LABEL_MAX} or fewer in length.",
            )
    if creating and not (
        content or embeds or files or components or body.get("sticker_ids") or body.get("poll")
    ):
        return _error(400, 50006)
    return None


def _validate_commands(commands: Sequence[Json]) -> _Reply | None:
    """Discord's rules for application command names, descriptions and option counts."""
    seen: set[tuple[str, int]] = set()
    for index, command in enumerate(commands):
        kind = int(command.get("type", 1))
        key = (str(command.get("name")), kind)
        if key in seen:
            return _form_error(
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
) -> _Reply | None:
    """Check one command or option, recursing into sub-options."""
    name = str(entry.get("name") or "")
    if chat_input and (not _COMMAND_NAME.match(name) or name != name.lower()):
        return _form_error(
            [*path, "name"],
            "APPLICATION_COMMAND_INVALID_NAME",
            f"Command name is invalid: {name!r}",
        )
    description = str(entry.get("description") or "")
    if chat_input and not 1 <= len(description) <= 100:
        return _form_error(
            [*path, "description"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length."
        )
    options = entry.get("options") or []
    if len(options) > 25:
        return _form_error(
            [*path, "options"], "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."
        )
    if len(entry.get("choices") or []) > 25:
        return _form_error(
            [*path, "choices"], "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."
        )
    for index, option in enumerate(options):
        error = _validate_command_entry(option, [*path, "options", index], chat_input=chat_input)
        if error is not None:
            return error
    return None


# ---------------------------------------------------------------------------------------------
# Gateway sessions and connections.
# ---------------------------------------------------------------------------------------------


def _zstd_stream() -> Callable[[bytes], bytes] | None:
    """A zstd-stream frame encoder, if this interpreter has zstd (discord.py then asks for it)."""
    try:
        import zstandard
    except ImportError:
        try:
            from compression import zstd
        except ImportError:
            return None
        stdlib = zstd.ZstdCompressor()
        return lambda data: stdlib.compress(data, mode=zstd.ZstdCompressor.FLUSH_BLOCK)
    compressobj = zstandard.ZstdCompressor().compressobj()
    return lambda data: (
        compressobj.compress(data) + compressobj.flush(zstandard.COMPRESSOBJ_FLUSH_BLOCK)
    )


class _GatewayConnection:
    """One websocket; owns the transport compression state, which is per connection."""

    def __init__(self, ws: web.WebSocketResponse, compress: str | None, path: str) -> None:
        self.ws = ws
        self.compress = compress
        self.path = path
        self.session: _Session | None = None
        self.closed_by_server = False
        self._lock = asyncio.Lock()
        self._zlib = zlib.compressobj() if compress == "zlib-stream" else None
        self._zstd = _zstd_stream() if compress == "zstd-stream" else None

    async def send(self, payload: Json) -> None:
        """Send one gateway payload, compressed the way the client asked for."""
        data = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
        # The lock keeps compressed frames in stream order when several tasks dispatch at once.
        async with self._lock:
            if self.ws.closed:
                return
            with contextlib.suppress(ConnectionResetError, RuntimeError):
                if self._zlib is not None:
                    # zlib-stream: one deflate stream per connection, each payload ends with a
                    # Z_SYNC_FLUSH (00 00 ff ff), which is how discord.py finds message boundaries.
                    await self.ws.send_bytes(
                        self._zlib.compress(data) + self._zlib.flush(zlib.Z_SYNC_FLUSH)
                    )
                elif self._zstd is not None:
                    await self.ws.send_bytes(self._zstd(data))
                else:
                    await self.ws.send_str(data.decode())


class _Session:
    """A gateway session: outlives its connection until invalidated, so RESUME can replay."""

    BACKLOG = 1000

    def __init__(self, session_id: str, intents: int, bot_id: int, shard: list[int] | None) -> None:
        self.id = session_id
        self.intents = intents
        self.bot_id = bot_id
        self.shard = shard
        self.seq = 0
        self.ready = False
        self.conn: _GatewayConnection | None = None
        self.backlog: deque[Json] = deque(maxlen=self.BACKLOG)
        self.lock = asyncio.Lock()

    def wants(self, event: str, data: Json) -> bool:
        """Intent filtering: guild and DM message events need their intents."""
        if event.startswith("MESSAGE_") and not event.startswith("MESSAGE_REACTION"):
            needed = INTENT_GUILD_MESSAGES if data.get("guild_id") else INTENT_DIRECT_MESSAGES
            return bool(self.intents & needed)
        return True

    def shape(self, event: str, data: Json) -> Json:
        """Without MESSAGE_CONTENT, Discord blanks guild messages not by/mentioning the bot."""
        if (
            event not in ("MESSAGE_CREATE", "MESSAGE_UPDATE")
            or self.intents & INTENT_MESSAGE_CONTENT
        ):
            return data
        if not data.get("guild_id") or int(data.get("author", {}).get("id", 0)) == self.bot_id:
            return data
        if any(int(m["id"]) == self.bot_id for m in data.get("mentions", [])):
            return data
        return {**data, "content": "", "embeds": [], "attachments": [], "components": []}

    async def emit(self, event: str, data: Json) -> None:
        """Sequence one dispatch, keep it for RESUME, and send it if connected."""
        if not self.wants(event, data):
            return
        async with self.lock:
            self.seq += 1
            frame = {"op": OP_DISPATCH, "t": event, "s": self.seq, "d": self.shape(event, data)}
            self.backlog.append(frame)
            if self.conn is not None:
                await self.conn.send(frame)

    async def resume(self, conn: _GatewayConnection, after_seq: int) -> None:
        """Attach a new connection, replay what it missed, then say RESUMED."""
        async with self.lock:
            self.conn = conn
            conn.session = self
            for frame in list(self.backlog):
                if frame["s"] > after_seq:
                    await conn.send(frame)
            self.seq += 1
            frame = {"op": OP_DISPATCH, "t": "RESUMED", "s": self.seq, "d": {}}
            self.backlog.append(frame)
            await conn.send(frame)


# ---------------------------------------------------------------------------------------------
# The fake.
# ---------------------------------------------------------------------------------------------

_RouteHandler = Callable[["_Call"], Any]


@dataclass
class _Call:
    """A routed REST request."""

    request: web.Request
    params: dict[str, str]
    body: Any
    files: list[UploadedFile]
    record: RecordedRequest

    @property
    def json(self) -> Json:
        """The JSON object body, or {} when there is none."""
        return self.body if isinstance(self.body, dict) else {}


# (method, template, handler name); first match wins, so "@me" comes before "{user_id}".
_ROUTES: tuple[tuple[str, str, str], ...] = (
    ("GET", "/users/@me", "_get_me"),
    ("POST", "/users/@me/channels", "_create_dm"),
    ("GET", "/users/{user_id}", "_get_user"),
    ("GET", "/gateway", "_get_gateway"),
    ("GET", "/gateway/bot", "_get_gateway_bot"),
    ("GET", "/oauth2/applications/@me", "_get_application"),
    ("GET", "/applications/@me", "_get_application"),
    ("GET", "/channels/{channel_id}", "_get_channel"),
    ("PATCH", "/channels/{channel_id}", "_edit_channel"),
    ("GET", "/channels/{channel_id}/messages", "_list_messages"),
    ("POST", "/channels/{channel_id}/messages", "_create_message"),
    ("GET", "/channels/{channel_id}/messages/{message_id}", "_get_message"),
    ("PATCH", "/channels/{channel_id}/messages/{message_id}", "_edit_message"),
    ("DELETE", "/channels/{channel_id}/messages/{message_id}", "_delete_message"),
    ("POST", "/channels/{channel_id}/typing", "_typing"),
    ("PUT", "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me", "_add_reaction"),
    (
        "DELETE",
        "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me",
        "_remove_reaction",
    ),
    (
        "DELETE",
        "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/{user_id}",
        "_remove_reaction",
    ),
    ("GET", "/guilds/{guild_id}", "_get_guild"),
    ("GET", "/guilds/{guild_id}/channels", "_get_guild_channels"),
    ("GET", "/guilds/{guild_id}/roles", "_get_roles"),
    ("GET", "/guilds/{guild_id}/members/{user_id}", "_get_member"),
    ("GET", "/applications/{app_id}/commands", "_list_commands"),
    ("PUT", "/applications/{app_id}/commands", "_put_commands"),
    ("POST", "/applications/{app_id}/commands", "_post_command"),
    ("DELETE", "/applications/{app_id}/commands/{command_id}", "_delete_command"),
    ("GET", "/applications/{app_id}/guilds/{guild_id}/commands", "_list_commands"),
    ("PUT", "/applications/{app_id}/guilds/{guild_id}/commands", "_put_commands"),
    ("POST", "/applications/{app_id}/guilds/{guild_id}/commands", "_post_command"),
    ("DELETE", "/applications/{app_id}/guilds/{guild_id}/commands/{command_id}", "_delete_command"),
    ("POST", "/interactions/{interaction_id}/{token}/callback", "_interaction_callback"),
    ("POST", "/webhooks/{app_id}/{token}", "_create_followup"),
    ("GET", "/webhooks/{app_id}/{token}/messages/{message_id}", "_get_webhook_message"),
    ("PATCH", "/webhooks/{app_id}/{token}/messages/{message_id}", "_edit_webhook_message"),
    ("DELETE", "/webhooks/{app_id}/{token}/messages/{message_id}", "_delete_webhook_message"),
)
_COMPILED_ROUTES = tuple(
    (method, template, re.compile(re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", template)), handler)
    for method, template, handler in _ROUTES
)
# Interaction endpoints authenticate by token in the URL and sit outside the global limit.
_TOKEN_ROUTES = ("/interactions/", "/webhooks/")


class FakeDiscord:
    """Fake Discord REST API and gateway on 127.0.0.1; ``async with FakeDiscord() as fake:``."""

    def __init__(
        self,
        world: World | None = None,
        *,
        token: str | None = "fake-bot-token",
        interaction_deadline: float = 3.0,
        interaction_token_ttl: float = 15 * 60,
        nonce_window: float = 5 * 60,
        heartbeat_interval_ms: int = 41_250,
        allowed_intents: int | None = None,
    ) -> None:
        self.world = world or World.default()
        self.token = token  # None accepts any token
        self.interaction_deadline = interaction_deadline
        self.interaction_token_ttl = interaction_token_ttl
        self.nonce_window = nonce_window
        self.heartbeat_interval_ms = heartbeat_interval_ms
        # Privileged intents "enabled in the developer portal"; None allows all (else close 4014).
        self.allowed_intents = allowed_intents

        self.requests: list[RecordedRequest] = []
        self.dispatched: list[Json] = []  # {"t": event, "d": data} for every dispatch attempt
        self.received_ops: list[Json] = []  # gateway payloads from the bot, token redacted
        self.identifies = 0
        self.resumes = 0
        self.heartbeats = 0
        self.interactions: list[InteractionRecord] = []
        self.deadline_misses: list[InteractionRecord] = []
        # 429s served, by cause: "injected", "channel", "global".
        self.rate_limit_hits: Counter[str] = Counter()
        self.deleted: list[Json] = []
        self.typing: list[tuple[int, float]] = []  # (channel_id, time.monotonic())
        self.faults: list[Fault] = []

        self._last_snowflake = 0
        self._messages: dict[int, Json] = {}
        self._channel_log: dict[int, list[int]] = {}
        self._edits: dict[int, list[Json]] = {}
        self._attachment_data: dict[int, bytes] = {}
        self._nonces: dict[tuple[int, str], tuple[int, float]] = {}
        self._commands: dict[int | None, dict[tuple[str, int], Json]] = {}
        self._command_ids: dict[tuple[int | None, str, int], int] = {}
        self._dm_channels: dict[int, int] = {}  # user id -> DM channel id
        self._dm_users: dict[int, int] = {}  # DM channel id -> user id
        self._interactions_by_id: dict[int, InteractionRecord] = {}
        self._channel_limit: tuple[int, float] | None = None
        self._channel_windows: dict[int, _Window] = {}
        self._global_window: _Window | None = None
        self._sessions: dict[str, _Session] = {}
        self._connections: set[_GatewayConnection] = set()
        self._changed = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self._port = 0

    # -- lifecycle -------------------------------------------------------------------------

    async def start(self) -> None:
        """Listen on a free port of 127.0.0.1."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/", self._gateway)
        app.router.add_get("/resume/", self._gateway)
        app.router.add_route("*", "/{tail:.*}", self._rest)
        # A short shutdown so close() does not wait a minute for a client that never hangs up.
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self._port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock).start()

    async def close(self) -> None:
        """Close every gateway connection (code 1001) and stop listening."""
        for conn in list(self._connections):
            conn.closed_by_server = True
            with contextlib.suppress(Exception):
                await conn.ws.close(code=1001, message=b"fake Discord shutting down")
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self._port}"

    @property
    def api_base(self) -> str:
        """The value for ``discord.http.Route.BASE`` / setting ``DISCORD_API_BASE``."""
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        """The value for ``DiscordWebSocket.DEFAULT_GATEWAY`` / setting ``DISCORD_GATEWAY_URL``."""
        return f"ws://127.0.0.1:{self._port}/"

    @property
    def resume_gateway_url(self) -> str:
        """Sent in READY; a separate path so tests can see the client resumed where told."""
        return f"ws://127.0.0.1:{self._port}/resume/"

    # -- reading state ---------------------------------------------------------------------

    def messages(self, channel_id: int) -> list[Json]:
        """Current (not deleted, not ephemeral) messages of a channel, oldest first."""
        return [copy.deepcopy(self._messages[mid]) for mid in self._channel_log.get(channel_id, [])]

    def message(self, message_id: int) -> Json | None:
        """The current payload of a message (ephemeral ones included), or None."""
        found = self._messages.get(int(message_id))
        return copy.deepcopy(found) if found is not None else None

    def edits(self, message_id: int) -> list[Json]:
        """Every edit body the bot sent for a message, in order (PATCH, @original, type 7)."""
        return copy.deepcopy(self._edits.get(int(message_id), []))

    def attachment_data(self, message_id: int) -> dict[str, bytes]:
        """Filename -> bytes of a message's attachments."""
        found = self._messages.get(int(message_id)) or {}
        return {
            a["filename"]: self._attachment_data.get(int(a["id"]), b"")
            for a in found.get("attachments", [])
        }

    def commands(self, guild_id: int | None = None) -> list[Json]:
        """Application commands the bot synced (global when ``guild_id`` is None)."""
        return copy.deepcopy(list(self._commands.get(guild_id, {}).values()))

    def dm_channel_id(self, user_id: int) -> int:
        """The DM channel between the bot and a user, created on first use like Discord's."""
        if user_id not in self._dm_channels:
            channel_id = self._snowflake()
            self._dm_channels[user_id] = channel_id
            self._dm_users[channel_id] = user_id
        return self._dm_channels[user_id]

    @property
    def unknown_requests(self) -> list[RecordedRequest]:
        """Requests to routes the fake does not implement (answered 404/405)."""
        return [r for r in self.requests if r.route is None]

    @property
    def failed_requests(self) -> list[RecordedRequest]:
        """Every request answered with a 4xx or 5xx."""
        return [r for r in self.requests if r.status >= 400]

    def describe(self, last: int = 15) -> str:
        """A short summary of recent traffic, for assertion messages."""
        requests = "\n".join(f"    {r}" for r in self.requests[-last:]) or "    (none)"
        events = ", ".join(e["t"] for e in self.dispatched[-last:]) or "(none)"
        return (
            f"  last requests:\n{requests}\n  last dispatches: {events}\n"
            f"  sessions: {len(self._sessions)} identifies={self.identifies} resumes={self.resumes}"
        )

    # -- waiting ---------------------------------------------------------------------------

    def _notify(self) -> None:
        """Wake every waiter so it re-checks its condition."""
        self._changed.set()
        self._changed = asyncio.Event()

    # A deadline argument reads better in tests than wrapping every call in asyncio.timeout.
    async def wait_until(
        self,
        predicate: Callable[[], _T | None],
        timeout: float = 5.0,  # noqa: ASYNC109
        *,
        what: str = "",
    ) -> _T:
        """Wait until ``predicate()`` is truthy and return it; AssertionError on timeout."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = predicate()
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                label = what or getattr(predicate, "__name__", "condition")
                raise AssertionError(
                    f"timed out after {timeout}s waiting for {label}\n{self.describe()}"
                )
            event = self._changed
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), remaining)

    async def wait_for_message(
        self,
        channel_id: int,
        predicate: Callable[[Json], bool] | None = None,
        timeout: float = 5.0,  # noqa: ASYNC109
        *,
        after: int | None = None,
        from_bot: bool = True,
    ) -> Json:
        """The first message in a channel newer than ``after``; only the bot's by default."""

        def find() -> Json | None:
            for message in self.messages(channel_id):
                if after is not None and int(message["id"]) <= int(after):
                    continue
                if from_bot and int(message["author"]["id"]) != self.world.bot.id:
                    continue
                if predicate is None or predicate(message):
                    return message
            return None

        try:
            found = await self.wait_until(find, timeout, what=f"a message in channel {channel_id}")
        except AssertionError as exc:
            seen = [
                f"{m['author']['username']}: {m['content'][:80]!r}"
                for m in self.messages(channel_id)
            ]
            raise AssertionError(f"{exc}\n  messages in channel {channel_id}: {seen}") from None
        return found

    async def wait_for_request(
        self,
        method: str,
        path_regex: str,
        timeout: float = 5.0,  # noqa: ASYNC109
        *,
        since: int = 0,
        predicate: Callable[[RecordedRequest], bool] | None = None,
    ) -> RecordedRequest:
        """First answered request with ``method`` ("*" = any) whose path fullmatches the regex."""
        pattern = re.compile(path_regex)

        def find() -> RecordedRequest | None:
            for recorded in self.requests[since:]:
                if (
                    recorded.status
                    and method in ("*", recorded.method)
                    and pattern.fullmatch(recorded.path)
                    and (predicate is None or predicate(recorded))
                ):
                    return recorded
            return None

        return await self.wait_until(find, timeout, what=f"request {method} {path_regex}")

    async def wait_for_gateway_ready(self, timeout: float = 10.0) -> Json:  # noqa: ASYNC109
        """Wait until a session got READY and GUILD_CREATE; returns its IDENTIFY ``d``."""
        await self.wait_until(
            lambda: any(s.ready for s in self._sessions.values()), timeout, what="a gateway session"
        )
        identifies = [op["d"] for op in self.received_ops if op.get("op") == OP_IDENTIFY]
        return identifies[-1] if identifies else {}

    # -- faults and rate limits ------------------------------------------------------------

    def inject(
        self,
        method: str,
        path_regex: str | None = None,
        *,
        status: int,
        times: int | None = 1,
        retry_after: float = 1.0,
        global_: bool = False,
        code: int | None = None,
        message: str | None = None,
        channel_id: int | None = None,
    ) -> Fault:
        """Answer the next ``times`` matching requests (None = all) with a Discord-shaped error."""
        if path_regex is None:
            if channel_id is None:
                raise ValueError("inject() needs path_regex or channel_id")
            path_regex = rf"/channels/{channel_id}(?:/.*)?"
        if code is None:
            code = {403: 50001}.get(status, 0)
        if message is None:
            message = ERROR_MESSAGES.get(code) or f"{status}: {_STATUS_TEXT.get(status, 'Error')}"
        fault = Fault(
            method.upper(),
            re.compile(path_regex),
            status,
            times,
            retry_after,
            global_,
            code,
            message,
        )
        self.faults.append(fault)
        return fault

    def clear_faults(self) -> None:
        """Remove every injected fault."""
        self.faults.clear()

    def rate_limit_channel_messages(self, per: int | None = 5, seconds: float = 5.0) -> None:
        """Emulate Discord's per-channel message bucket (5 per 5 s); ``per=None`` turns it off."""
        self._channel_limit = None if per is None else (per, seconds)
        self._channel_windows.clear()

    def rate_limit_global(self, per: int | None = 50, seconds: float = 1.0) -> None:
        """Emulate the global limit (50 requests/s per bot); ``per=None`` turns it off."""
        self._global_window = None if per is None else _Window(per, seconds)

    # -- gateway ---------------------------------------------------------------------------

    async def dispatch(self, event: str, data: Json) -> None:
        """Send a DISPATCH event to every session (kept for RESUME when disconnected)."""
        self.dispatched.append({"t": event, "d": copy.deepcopy(data)})
        for session in list(self._sessions.values()):
            await session.emit(event, data)
        self._notify()

    async def disconnect_gateway(self, code: int = 4000, *, resumable: bool = True) -> None:
        """Close all gateway connections; ``resumable=False`` makes RESUME get INVALID_SESSION."""
        for conn in list(self._connections):
            conn.closed_by_server = True
            if not resumable and conn.session is not None:
                self._sessions.pop(conn.session.id, None)
            with contextlib.suppress(Exception):
                await conn.ws.close(code=code, message=b"fake disconnect")

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        """The gateway websocket: HELLO, then IDENTIFY/RESUME, heartbeats and dispatches."""
        ws = web.WebSocketResponse(compress=False, max_msg_size=0, timeout=2.0)
        if not ws.can_prepare(request).ok:
            return await self._rest(request)
        await ws.prepare(request)
        compress = request.query.get("compress")
        conn = _GatewayConnection(ws, compress, request.path)
        self._connections.add(conn)
        try:
            if request.query.get("encoding", "json") != "json":
                await ws.close(code=4002, message=b"the fake speaks encoding=json only")
                return ws
            if compress not in (None, "zlib-stream", "zstd-stream") or (
                compress == "zstd-stream" and conn._zstd is None
            ):
                await ws.close(code=4000, message=b"unsupported compress")
                return ws
            await conn.send(
                {"op": OP_HELLO, "d": {"heartbeat_interval": self.heartbeat_interval_ms}}
            )
            async for msg in ws:
                if msg.type is WSMsgType.TEXT:
                    await self._on_gateway_payload(conn, json.loads(msg.data))
        finally:
            self._connections.discard(conn)
            session = conn.session
            if session is not None and session.conn is conn:
                session.conn = None
                # A client that closes with 1000/1001 ends its session, as on Discord.
                if not conn.closed_by_server and ws.close_code in (1000, 1001):
                    self._sessions.pop(session.id, None)
            self._notify()
        return ws

    async def _on_gateway_payload(self, conn: _GatewayConnection, payload: Json) -> None:
        """Handle one opcode from the client."""
        op = payload.get("op")
        data = payload.get("d")
        logged = copy.deepcopy(payload)
        if isinstance(logged.get("d"), dict) and "token" in logged["d"]:
            logged["d"]["token"] = "<redacted>"
        self.received_ops.append(logged)
        if op == OP_HEARTBEAT:
            self.heartbeats += 1
            await conn.send({"op": OP_HEARTBEAT_ACK})
        elif op == OP_IDENTIFY:
            await self._identify(conn, data or {})
        elif op == OP_RESUME:
            await self._resume(conn, data or {})
        elif op == OP_REQUEST_GUILD_MEMBERS:
            await self._request_members(conn, data or {})
        elif op in (OP_PRESENCE_UPDATE, OP_VOICE_STATE_UPDATE):
            pass  # recorded in received_ops; nothing in this world reacts to presence or voice
        else:
            await conn.ws.close(code=4001, message=b"Unknown opcode")
        self._notify()

    def _token_ok(self, token: str | None) -> bool:
        """Whether a token (with or without the "Bot " prefix) is the configured one."""
        if self.token is None:
            return True
        return token in (self.token, f"Bot {self.token}")

    async def _identify(self, conn: _GatewayConnection, data: Json) -> None:
        """IDENTIFY -> READY (guild unavailable) -> GUILD_CREATE, like Discord."""
        if conn.session is not None:
            await conn.ws.close(code=4005, message=b"Already authenticated.")
            return
        if not self._token_ok(data.get("token")):
            await conn.ws.close(code=4004, message=b"Authentication failed.")
            return
        intents = int(data.get("intents", 0))
        if (
            self.allowed_intents is not None
            and intents & PRIVILEGED_INTENTS & ~self.allowed_intents
        ):
            await conn.ws.close(code=4014, message=b"Disallowed intent(s).")
            return
        shard = data.get("shard")
        session = _Session(secrets.token_hex(16), intents, self.world.bot.id, shard)
        self._sessions[session.id] = session
        session.conn = conn
        conn.session = session
        self.identifies += 1
        on_this_shard = shard is None or (self.world.guild_id >> 22) % shard[1] == shard[0]
        ready: Json = {
            "v": 10,
            "user": {
                **self.world.bot.payload(),
                "verified": True,
                "mfa_enabled": False,
                "flags": 0,
            },
            "guilds": [{"id": str(self.world.guild_id), "unavailable": True}]
            if on_this_shard
            else [],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": self.resume_gateway_url,
            # Unverified bot with the privileged intents switched on in the portal.
            "application": {"id": str(self.world.bot.id), "flags": (1 << 15) | (1 << 19)},
            "private_channels": [],
            "relationships": [],
            "user_settings": {},
        }
        if shard is not None:
            ready["shard"] = shard
        events: list[tuple[str, Json]] = [("READY", ready)]
        if on_this_shard:
            guild = self.world.guild_create_payload(
                with_members=bool(intents & INTENT_GUILD_MEMBERS)
            )
            events.append(("GUILD_CREATE", guild))
        for event, payload in events:
            self.dispatched.append({"t": event, "d": copy.deepcopy(payload)})
            await session.emit(event, payload)
        session.ready = True

    async def _resume(self, conn: _GatewayConnection, data: Json) -> None:
        """RESUME a known session (replaying missed events) or answer INVALID_SESSION."""
        if not self._token_ok(data.get("token")):
            await conn.ws.close(code=4004, message=b"Authentication failed.")
            return
        session = self._sessions.get(str(data.get("session_id")))
        if session is None:
            # d=false: not resumable, so the client must IDENTIFY afresh.
            await conn.send({"op": OP_INVALID_SESSION, "d": False})
            return
        old = session.conn
        if old is not None and old is not conn:
            old.closed_by_server = True
            with contextlib.suppress(Exception):
                await old.ws.close(code=4000, message=b"session resumed elsewhere")
        self.resumes += 1
        await session.resume(conn, int(data.get("seq") or 0))

    async def _request_members(self, conn: _GatewayConnection, data: Json) -> None:
        """REQUEST_GUILD_MEMBERS -> one GUILD_MEMBERS_CHUNK."""
        if conn.session is None:
            return
        query = str(data.get("query") or "").lower()
        wanted = set(_ids(data.get("user_ids") or []))
        members: list[Json] = []
        for member in self.world.members:
            user = self.world.user(member.user_id)
            if user is None:
                continue
            if wanted and member.user_id not in wanted:
                continue
            if query and not user.username.lower().startswith(query):
                continue
            payload = self.world.member_payload(member.user_id)
            if payload is not None:
                members.append(payload)
        limit = int(data.get("limit") or 0)
        if limit:
            members = members[:limit]
        chunk: Json = {
            "guild_id": str(self.world.guild_id),
            "members": members,
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [str(u) for u in wanted - {int(m["user"]["id"]) for m in members}],
        }
        if data.get("nonce") is not None:
            chunk["nonce"] = data["nonce"]
        if data.get("presences"):
            chunk["presences"] = []
        await conn.session.emit("GUILD_MEMBERS_CHUNK", chunk)

    # -- users acting in the world ---------------------------------------------------------

    def _snowflake(self) -> int:
        """A time-ordered id, strictly increasing within this fake."""
        now_ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        self._last_snowflake = max((now_ms << 22) | (1 << 17), self._last_snowflake + 1)
        return self._last_snowflake

    def _guild_id_of(self, channel_id: int) -> int | None:
        """The guild of a channel, None for a DM channel."""
        return None if channel_id in self._dm_users else self.world.guild_id

    def _channel_exists(self, channel_id: int) -> bool:
        return self.world.channel(channel_id) is not None or channel_id in self._dm_users

    def _user_or_fail(self, user_id: int) -> FakeUser:
        user = self.world.user(user_id)
        if user is None:
            known = [u.id for u in self.world.users]
            raise ValueError(f"unknown user {user_id}; the world has {known}")
        return user

    def _mention_entry(self, user_id: int, guild_id: int | None) -> Json | None:
        """A ``mentions`` entry: the user plus its partial member in a guild."""
        user = self.world.user(user_id)
        if user is None:
            return None
        entry = user.payload()
        if guild_id is not None:
            member = self.world.member_payload(user_id, with_user=False)
            if member is not None:
                entry["member"] = member
        return entry

    def _build_message(
        self,
        channel_id: int,
        author_id: int,
        *,
        content: str = "",
        embeds: Sequence[Json] = (),
        components: Sequence[Json] = (),
        attachments: Sequence[Json] = (),
        flags: int = 0,
        mention_ids: Iterable[int] = (),
        role_ids: Iterable[int] = (),
        everyone: bool = False,
        reference: Json | None = None,
        referenced: Json | None = None,
        msg_type: int = MESSAGE_DEFAULT,
        extra: Json | None = None,
    ) -> Json:
        """A complete message object as Discord returns and dispatches it."""
        guild_id = self._guild_id_of(channel_id)
        mentions = [self._mention_entry(u, guild_id) for u in dict.fromkeys(mention_ids)]
        message: Json = {
            "id": str(self._snowflake()),
            "type": msg_type,
            "channel_id": str(channel_id),
            "author": self._user_or_fail(author_id).payload(),
            "content": content,
            "timestamp": _iso(time.time()),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": everyone,
            "mentions": [m for m in mentions if m is not None],
            "mention_roles": [str(r) for r in dict.fromkeys(role_ids) if self.world.role(r)],
            "attachments": list(attachments),
            "embeds": list(embeds),
            "components": list(components),
            "pinned": False,
            "flags": flags,
        }
        if guild_id is not None:
            message["guild_id"] = str(guild_id)
            member = self.world.member_payload(author_id, with_user=False)
            if member is not None:
                message["member"] = member
        if reference is not None:
            message["message_reference"] = reference
            # Discord nests one level only: the referenced message carries no referenced_message.
            message["referenced_message"] = (
                {k: v for k, v in referenced.items() if k != "referenced_message"}
                if referenced
                else None
            )
        if extra:
            message.update(extra)
        return message

    def _store(self, message: Json, *, visible: bool = True) -> None:
        """Keep a message; visible ones are in channel history (ephemeral ones are not)."""
        message_id = int(message["id"])
        self._messages[message_id] = message
        if visible:
            self._channel_log.setdefault(int(message["channel_id"]), []).append(message_id)

    def _is_visible(self, message_id: int) -> bool:
        found = self._messages.get(message_id)
        return found is not None and message_id in self._channel_log.get(
            int(found["channel_id"]), []
        )

    def _make_attachments(self, channel_id: int, files: Iterable[Sequence[Any]]) -> list[Json]:
        """Attachments for (filename, bytes[, content_type]) tuples, served by the fake CDN."""
        result = []
        for item in files:
            filename, data = str(item[0]), bytes(item[1])
            content_type = item[2] if len(item) > 2 else mimetypes.guess_type(filename)[0]
            result.append(self._attachment(channel_id, filename, data, content_type, None))
        return result

    def _attachment(
        self,
        channel_id: int,
        filename: str,
        data: bytes,
        content_type: str | None,
        description: str | None,
    ) -> Json:
        attachment_id = self._snowflake()
        self._attachment_data[attachment_id] = data
        url = f"{self.base_url}/cdn/attachments/{channel_id}/{attachment_id}/{filename}"
        attachment: Json = {
            "id": str(attachment_id),
            "filename": filename,
            "size": len(data),
            "url": url,
            "proxy_url": url,
            "content_type": content_type
            or mimetypes.guess_type(filename)[0]
            or "application/octet-stream",
        }
        if description:
            attachment["description"] = description
        return attachment

    async def send_user_message(
        self,
        channel_id: int,
        author_id: int,
        content: str,
        *,
        mention_bot: bool = False,
        mentions: Iterable[int] = (),
        reply_to: int | None = None,
        reply_mention: bool = True,
        attachments: Iterable[Sequence[Any]] = (),
    ) -> Json:
        """A person posts in a channel; returns the MESSAGE_CREATE payload."""
        if not self._channel_exists(channel_id):
            raise ValueError(f"unknown channel {channel_id}")
        bot_id = self.world.bot.id
        if mention_bot and bot_id not in _ids(_USER_MENTION.findall(content)):
            content = f"<@{bot_id}> {content}"
        mention_ids = [*_ids(_USER_MENTION.findall(content)), *mentions]
        reference = referenced = None
        msg_type = MESSAGE_DEFAULT
        if reply_to is not None:
            referenced = self._messages.get(int(reply_to))
            if referenced is None:
                raise ValueError(f"cannot reply to unknown message {reply_to}")
            reference = {
                "type": 0,
                "message_id": referenced["id"],
                "channel_id": referenced["channel_id"],
                "guild_id": referenced.get("guild_id"),
            }
            msg_type = MESSAGE_REPLY
            # Discord's client pings the replied-to author by default, so they land in mentions.
            if reply_mention and int(referenced["author"]["id"]) != author_id:
                mention_ids.append(int(referenced["author"]["id"]))
        message = self._build_message(
            channel_id,
            author_id,
            content=content,
            attachments=self._make_attachments(channel_id, attachments),
            mention_ids=mention_ids,
            role_ids=_ids(_ROLE_MENTION.findall(content)),
            everyone=bool(_EVERYONE_MENTION.search(content)),
            reference=reference,
            referenced=referenced,
            msg_type=msg_type,
        )
        self._store(message)
        await self.dispatch("MESSAGE_CREATE", message)
        return copy.deepcopy(message)

    async def send_dm_from_user(
        self, author_id: int, content: str, *, attachments: Iterable[Sequence[Any]] = ()
    ) -> Json:
        """A person writes to the bot in DMs (channel type 1, no guild_id, no member)."""
        self._user_or_fail(author_id)
        return await self.send_user_message(
            self.dm_channel_id(author_id), author_id, content, attachments=attachments
        )

    # -- interactions ----------------------------------------------------------------------

    def _interaction_payload(
        self,
        interaction_type: int,
        data: Json,
        *,
        user_id: int,
        channel_id: int,
        message: Json | None = None,
    ) -> Json:
        """An INTERACTION_CREATE payload for a guild channel or a DM."""
        user = self._user_or_fail(user_id)
        bot = self.world.bot
        payload: Json = {
            "id": str(self._snowflake()),
            "application_id": str(bot.id),
            "type": interaction_type,
            "data": data,
            "channel_id": str(channel_id),
            "token": secrets.token_hex(32),
            "version": 1,
            "locale": self.world.locale,
            "entitlements": [],
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
        }
        guild_channel = self.world.channel(channel_id)
        if guild_channel is not None:
            member = self.world.member_payload(user_id, with_permissions=True)
            if member is None:
                raise ValueError(f"user {user_id} is not a member of the guild")
            payload.update(
                guild_id=str(self.world.guild_id),
                guild={"id": str(self.world.guild_id), "locale": self.world.locale, "features": []},
                guild_locale=self.world.locale,
                member=member,
                channel=self.world.channel_payload(guild_channel, for_user=user_id),
                app_permissions=str(self.world.permissions(bot.id)),
                context=0,
                authorizing_integration_owners={"0": str(self.world.guild_id)},
            )
        elif channel_id in self._dm_users:
            payload.update(
                user=user.payload(),
                channel={
                    "id": str(channel_id),
                    "type": 1,
                    "recipients": [user.payload()],
                    "flags": 0,
                },
                app_permissions=str(BOT_PERMISSIONS),
                context=1,
                authorizing_integration_owners={"0": "0"},
            )
        else:
            raise ValueError(f"unknown channel {channel_id}")
        if message is not None:
            payload["message"] = message
        return payload

    async def _start_interaction(
        self, payload: Json, source_message_id: int | None
    ) -> InteractionRecord:
        record = InteractionRecord(self, payload, source_message_id)
        self.interactions.append(record)
        self._interactions_by_id[record.id] = record
        await self.dispatch("INTERACTION_CREATE", payload)
        # The 3-second clock starts when Discord has sent the event, not when the test asked.
        record.created_at = time.monotonic()
        return record

    def _default_user(self) -> int:
        return self.world.users[0].id

    def _default_channel(self) -> int:
        return self.world.channels[0].id

    async def click_button(
        self, message_id: int, custom_id: str, user_id: int | None = None
    ) -> InteractionRecord:
        """A person clicks a button of a message (INTERACTION_CREATE type 3, component_type 2)."""
        return await self._component(message_id, custom_id, user_id, component_type=2, values=None)

    async def choose_select(
        self,
        message_id: int,
        custom_id: str,
        values: Sequence[str],
        user_id: int | None = None,
        *,
        component_type: int = 3,
    ) -> InteractionRecord:
        """A person picks values in a select menu (component_type 3 = string select)."""
        return await self._component(
            message_id, custom_id, user_id, component_type=component_type, values=values
        )

    async def _component(
        self,
        message_id: int,
        custom_id: str,
        user_id: int | None,
        *,
        component_type: int,
        values: Sequence[str] | None,
    ) -> InteractionRecord:
        message = self._messages.get(int(message_id))
        if message is None:
            raise ValueError(f"unknown message {message_id}")
        components = list(_walk_components(message.get("components") or []))
        component = next((c for c in components if c.get("custom_id") == custom_id), None)
        if component is None:
            present = [c.get("custom_id") for c in components if c.get("custom_id")]
            raise ValueError(
                f"message {message_id} has no component {custom_id!r}; it has {present}"
            )
        if component.get("disabled"):
            raise ValueError(
                f"component {custom_id!r} is disabled; Discord would not let anyone click it"
            )
        data: Json = {"custom_id": custom_id, "component_type": component_type}
        if values is not None:
            data["values"] = [str(v) for v in values]
        payload = self._interaction_payload(
            INTERACTION_MESSAGE_COMPONENT,
            data,
            user_id=user_id or self._default_user(),
            channel_id=int(message["channel_id"]),
            message=copy.deepcopy(message),
        )
        return await self._start_interaction(payload, int(message_id))

    def _find_command(self, name: str) -> tuple[Json | None, int | None]:
        """The synced command (guild first, then global) and its scope."""
        for scope in (self.world.guild_id, None):
            for (command_name, kind), command in self._commands.get(scope, {}).items():
                if command_name == name and kind == 1:
                    return command, scope
        return None, None

    def _option_value(self, kind: int, value: Any, resolved: Json, user_id: int) -> Any:
        """An option value as Discord sends it, filling ``resolved`` for users/channels/roles."""
        if kind in (OPTION_USER, OPTION_MENTIONABLE) and self.world.user(int(value)) is not None:
            target = int(value)
            resolved.setdefault("users", {})[str(target)] = self._user_or_fail(target).payload()
            member = self.world.member_payload(target, with_user=False, with_permissions=True)
            if member is not None:
                resolved.setdefault("members", {})[str(target)] = member
            return str(target)
        if kind in (OPTION_ROLE, OPTION_MENTIONABLE):
            role = self.world.role(int(value))
            if role is None:
                raise ValueError(f"unknown role {value}")
            resolved.setdefault("roles", {})[str(role.id)] = role.payload()
            return str(role.id)
        if kind == OPTION_CHANNEL:
            channel = self.world.channel(int(value))
            if channel is None:
                raise ValueError(f"unknown channel {value}")
            resolved.setdefault("channels", {})[str(channel.id)] = self.world.channel_payload(
                channel, for_user=user_id
            )
            return str(channel.id)
        if kind == OPTION_ATTACHMENT:
            attachment = self._make_attachments(self._default_channel(), [value])[0]
            resolved.setdefault("attachments", {})[attachment["id"]] = attachment
            return attachment["id"]
        return value

    def _build_options(
        self,
        definitions: list[Json] | None,
        values: Mapping[str, Any],
        resolved: Json,
        user_id: int,
        focused: str | None,
    ) -> list[Json]:
        """Interaction options for ``values``, typed from the synced definitions when known."""
        by_name = {d["name"]: d for d in definitions or []}
        options = []
        for name, value in values.items():
            definition = by_name.get(name)
            if definition is None and definitions:
                raise ValueError(
                    f"option {name!r} is not in the synced command; it has {sorted(by_name)}"
                )
            if definition is not None:
                kind = int(definition["type"])
            elif isinstance(value, bool):
                kind = OPTION_BOOLEAN
            elif isinstance(value, int):
                kind = OPTION_INTEGER
            elif isinstance(value, float):
                kind = OPTION_NUMBER
            else:
                kind = OPTION_STRING
            option: Json = {"name": name, "type": kind}
            if name == focused:
                # Autocomplete sends the partial text as typed, unresolved.
                option.update(value=str(value), focused=True)
            else:
                option["value"] = self._option_value(kind, value, resolved, user_id)
            options.append(option)
        return options

    def _command_data(
        self, name: str, options: Mapping[str, Any] | None, user_id: int, focused: str | None
    ) -> Json:
        """The ``data`` of an application-command interaction for "cmd [group] [sub]"."""
        top, *path = name.split()
        command, scope = self._find_command(top)
        command_id = (
            int(command["id"])
            if command
            else self._command_ids.setdefault((None, top, 1), self._snowflake())
        )
        resolved: Json = {}
        definitions = command.get("options") if command else None
        # Walk down group/subcommand definitions, building the nested option shells.
        shells: list[Json] = []
        for index, part in enumerate(path):
            definition = next((d for d in definitions or [] if d.get("name") == part), None)
            if definitions and definition is None:
                raise ValueError(f"{part!r} is not a subcommand of {name!r} as synced")
            if definition is not None:
                kind = int(definition["type"])
            else:
                kind = OPTION_SUB_COMMAND if index == len(path) - 1 else OPTION_SUB_COMMAND_GROUP
            shells.append({"name": part, "type": kind, "options": []})
            definitions = definition.get("options") if definition else None
        leaf = self._build_options(
            definitions if command else None, options or {}, resolved, user_id, focused
        )
        nested: list[Json] = leaf
        for shell in reversed(shells):
            shell["options"] = nested
            nested = [shell]
        data: Json = {"id": str(command_id), "name": top, "type": 1, "options": nested}
        if scope is not None:
            data["guild_id"] = str(scope)
        if resolved:
            data["resolved"] = resolved
        return data

    async def invoke_slash(
        self,
        name: str,
        options: Mapping[str, Any] | None = None,
        *,
        user_id: int | None = None,
        channel_id: int | None = None,
    ) -> InteractionRecord:
        """A person runs ``/name`` ("group sub" for subcommands) with ``options`` (type 2)."""
        user_id = user_id or self._default_user()
        data = self._command_data(name, options, user_id, focused=None)
        payload = self._interaction_payload(
            INTERACTION_APPLICATION_COMMAND,
            data,
            user_id=user_id,
            channel_id=channel_id or self._default_channel(),
        )
        return await self._start_interaction(payload, None)

    async def autocomplete(
        self,
        name: str,
        options: Mapping[str, Any],
        focused: str,
        *,
        user_id: int | None = None,
        channel_id: int | None = None,
    ) -> InteractionRecord:
        """A person types into option ``focused`` of ``/name`` (type 4); the bot answers type 8."""
        user_id = user_id or self._default_user()
        data = self._command_data(name, options, user_id, focused=focused)
        payload = self._interaction_payload(
            INTERACTION_AUTOCOMPLETE,
            data,
            user_id=user_id,
            channel_id=channel_id or self._default_channel(),
        )
        return await self._start_interaction(payload, None)

    async def submit_modal(
        self,
        custom_id: str,
        components: Mapping[str, Any],
        user_id: int | None = None,
        channel_id: int | None = None,
        message_id: int | None = None,
    ) -> InteractionRecord:
        """A person submits a modal the bot opened (type 5), ``{field_custom_id: value}``."""
        opener = next(
            (
                r
                for r in reversed(self.interactions)
                if r.response_type == CALLBACK_MODAL
                and (r.response or {}).get("data", {}).get("custom_id") == custom_id
            ),
            None,
        )
        values = dict(components)
        rows: list[Json] = []
        if opener is not None:
            modal = (opener.response or {}).get("data", {})
            # Mirror the modal's own layout (action rows or labels), like Discord does.
            for top in modal.get("components", []):
                inner = top.get("components") or (
                    [top["component"]] if top.get("component") else [top]
                )
                submitted = []
                for item in inner:
                    if not item.get("custom_id"):
                        continue
                    value = values.pop(item["custom_id"], "")
                    entry: Json = {"type": item.get("type", 4), "custom_id": item["custom_id"]}
                    if isinstance(value, list | tuple):
                        entry["values"] = [str(v) for v in value]
                    else:
                        entry["value"] = str(value)
                    submitted.append(entry)
                if not submitted:
                    continue
                if top.get("type") == 18:
                    rows.append({"type": 18, "component": submitted[0]})
                else:
                    rows.append({"type": 1, "components": submitted})
            if values:
                raise ValueError(f"modal {custom_id!r} has no fields {sorted(values)}")
            channel_id = channel_id or opener.channel_id
            message_id = message_id or opener.source_message_id
        else:
            rows = [
                {"type": 1, "components": [{"type": 4, "custom_id": key, "value": str(value)}]}
                for key, value in values.items()
            ]
        message = self._messages.get(int(message_id)) if message_id else None
        payload = self._interaction_payload(
            INTERACTION_MODAL_SUBMIT,
            {"custom_id": custom_id, "components": rows},
            user_id=user_id or (opener.user_id if opener else self._default_user()),
            channel_id=channel_id or self._default_channel(),
            message=copy.deepcopy(message) if message else None,
        )
        return await self._start_interaction(payload, int(message_id) if message_id else None)

    # -- REST plumbing ---------------------------------------------------------------------

    async def _read_body(self, request: web.Request) -> tuple[Any, list[UploadedFile]]:
        """JSON body, or multipart ``payload_json`` plus ``files[n]`` parts."""
        if request.content_type.startswith("multipart/"):
            body: Any = None
            files: list[UploadedFile] = []
            reader = await request.multipart()
            async for part in reader:
                if not isinstance(part, BodyPartReader):
                    continue
                if part.name == "payload_json":
                    body = json.loads(await part.text())
                elif part.filename is not None:
                    data = bytes(await part.read())
                    files.append(
                        UploadedFile(
                            part.name or "", part.filename, part.headers.get("Content-Type"), data
                        )
                    )
            return body, files
        raw = await request.read()
        if not raw:
            return None, []
        try:
            return json.loads(raw), []
        except ValueError:
            return raw.decode(errors="replace"), []

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        """Record every request, apply faults and limits, route it, record the answer."""
        if request.path.startswith("/cdn/attachments/"):
            return self._serve_attachment(request)
        match = _API_PATH.match(request.path)
        path = match["path"] if match else request.path
        body, files = await self._read_body(request)
        interesting = ("User-Agent", "Content-Type", "Authorization", "X-Audit-Log-Reason")
        record = RecordedRequest(
            method=request.method,
            path=path,
            query=dict(request.query),
            json=body,
            files=files,
            headers={k: request.headers[k] for k in interesting if k in request.headers},
            at=time.monotonic(),
        )
        self.requests.append(record)
        reply = await self._answer(request, record, path, body, files, is_api=match is not None)
        record.status = reply.status
        record.response = reply.data
        self._notify()
        if reply.data is None:
            return web.Response(status=reply.status, headers=reply.headers)
        # Exactly "application/json" (no charset): discord.py parses JSON only on that header.
        return web.Response(
            status=reply.status,
            body=json.dumps(reply.data, ensure_ascii=False).encode(),
            content_type="application/json",
            headers=reply.headers,
        )

    async def _answer(
        self,
        request: web.Request,
        record: RecordedRequest,
        path: str,
        body: Any,
        files: list[UploadedFile],
        *,
        is_api: bool,
    ) -> _Reply:
        """Auth, injected faults, the global limit, then the route handler."""
        if not is_api:
            return _error(404)
        handler_name, params, method_matched = None, {}, False
        for method, template, pattern, name in _COMPILED_ROUTES:
            found = pattern.fullmatch(path)
            if found is not None and method == request.method:
                record.route, handler_name, params = template, name, found.groupdict()
                break
            method_matched = method_matched or found is not None
        token_route = path.startswith(_TOKEN_ROUTES)
        if not token_route and not self._token_ok(request.headers.get("Authorization")):
            return _error(401)
        for fault in self.faults:
            if fault.matches(request.method, path):
                fault.served += 1
                return self._fault_reply(fault, request.method, path)
        if self._global_window is not None and not token_route:
            allowed, _, reset_after = self._global_window.take(time.monotonic())
            if not allowed:
                self.rate_limit_hits["global"] += 1
                return _too_many(reset_after, global_=True, scope="global", headers={})
        if handler_name is None:
            return _error(405) if method_matched else _error(404)
        handler: _RouteHandler = getattr(self, handler_name)
        reply: _Reply = await handler(_Call(request, params, body, files, record))
        return reply

    def _fault_reply(self, fault: Fault, method: str, path: str) -> _Reply:
        """The Discord-shaped answer of an injected fault."""
        if fault.status == 429:
            self.rate_limit_hits["injected"] += 1
            bucket = _bucket_hash(f"fault {method} {fault.pattern.pattern}")
            headers = _ratelimit_headers(1, 0, fault.retry_after, bucket)
            scope = "global" if fault.global_ else "user"
            return _too_many(fault.retry_after, global_=fault.global_, scope=scope, headers=headers)
        return _error(fault.status, fault.code, fault.message)

    def _serve_attachment(self, request: web.Request) -> web.Response:
        """The fake CDN, so ``Attachment.read()`` works offline."""
        parts = request.path.split("/")
        try:
            data = self._attachment_data[int(parts[4])]
        except (IndexError, ValueError, KeyError):
            return web.Response(status=404, text="not found")
        content_type = mimetypes.guess_type(parts[-1])[0] or "application/octet-stream"
        return web.Response(body=data, content_type=content_type)

    # -- REST: users, gateway, application -------------------------------------------------

    async def _get_me(self, call: _Call) -> _Reply:
        return _Reply(
            200, {**self.world.bot.payload(), "verified": True, "mfa_enabled": False, "flags": 0}
        )

    async def _get_user(self, call: _Call) -> _Reply:
        user = self.world.user(int(call.params["user_id"]))
        return _Reply(200, user.payload()) if user else _error(404, 10013)

    async def _create_dm(self, call: _Call) -> _Reply:
        user = self.world.user(int(call.json.get("recipient_id", 0)))
        if user is None:
            return _error(404, 10013)
        if user.bot:
            return _error(400, 50007)
        channel_id = self.dm_channel_id(user.id)
        return _Reply(
            200,
            {
                "id": str(channel_id),
                "type": 1,
                "recipients": [user.payload()],
                "last_message_id": None,
                "flags": 0,
            },
        )

    async def _get_gateway(self, call: _Call) -> _Reply:
        return _Reply(200, {"url": self.gateway_url.rstrip("/")})

    async def _get_gateway_bot(self, call: _Call) -> _Reply:
        limit = {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1}
        return _Reply(
            200, {"url": self.gateway_url.rstrip("/"), "shards": 1, "session_start_limit": limit}
        )

    async def _get_application(self, call: _Call) -> _Reply:
        owner = self.world.user(self.world.owner_id) or self.world.bot
        return _Reply(
            200,
            {
                "id": str(self.world.bot.id),
                "name": self.world.bot.username,
                "description": "",
                "icon": None,
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": owner.payload(),
                "team": None,
                "verify_key": "0" * 64,
                "summary": "",
                "flags": (1 << 15) | (1 << 19),
                "bot": self.world.bot.payload(),
                "interactions_endpoint_url": None,
                "redirect_uris": [],
                "tags": [],
                "approximate_guild_count": 1,
            },
        )

    # -- REST: guild -----------------------------------------------------------------------

    def _guild_or_error(self, call: _Call) -> _Reply | None:
        return None if int(call.params["guild_id"]) == self.world.guild_id else _error(404, 10004)

    async def _get_guild(self, call: _Call) -> _Reply:
        data = {**self.world.guild_payload()}
        if call.request.query.get("with_counts") in ("true", "1", "True"):
            data.update(
                approximate_member_count=len(self.world.members), approximate_presence_count=0
            )
        return self._guild_or_error(call) or _Reply(200, data)

    async def _get_guild_channels(self, call: _Call) -> _Reply:
        channels = [
            self.world.channel_payload(c) for c in self.world.channels if c.type not in (10, 11, 12)
        ]
        return self._guild_or_error(call) or _Reply(200, channels)

    async def _get_roles(self, call: _Call) -> _Reply:
        return self._guild_or_error(call) or _Reply(200, [r.payload() for r in self.world.roles])

    async def _get_member(self, call: _Call) -> _Reply:
        error = self._guild_or_error(call)
        if error:
            return error
        member = self.world.member_payload(int(call.params["user_id"]))
        return _Reply(200, member) if member else _error(404, 10007, "Unknown Member")

    # -- REST: channels and messages -------------------------------------------------------

    def _channel_payload(self, channel_id: int) -> Json | None:
        channel = self.world.channel(channel_id)
        if channel is not None:
            return self.world.channel_payload(channel)
        user_id = self._dm_users.get(channel_id)
        if user_id is not None:
            user = self._user_or_fail(user_id)
            return {
                "id": str(channel_id),
                "type": 1,
                "recipients": [user.payload()],
                "last_message_id": None,
                "flags": 0,
            }
        return None

    async def _get_channel(self, call: _Call) -> _Reply:
        data = self._channel_payload(int(call.params["channel_id"]))
        return _Reply(200, data) if data else _error(404, 10003)

    async def _edit_channel(self, call: _Call) -> _Reply:
        channel = self.world.channel(int(call.params["channel_id"]))
        if channel is None:
            return _error(404, 10003)
        body = call.json
        channel.name = body.get("name", channel.name)
        channel.topic = body.get("topic", channel.topic)
        data = self.world.channel_payload(channel)
        await self.dispatch("CHANNEL_UPDATE", data)
        return _Reply(200, data)

    async def _list_messages(self, call: _Call) -> _Reply:
        channel_id = int(call.params["channel_id"])
        if not self._channel_exists(channel_id):
            return _error(404, 10003)
        query = call.request.query
        limit = max(1, min(100, int(query.get("limit", 50))))
        ordered = self.messages(channel_id)
        if "before" in query:
            chosen = [m for m in ordered if int(m["id"]) < int(query["before"])][-limit:]
        elif "after" in query:
            # The oldest `limit` after the id, still newest first (discord.py relies on it).
            chosen = [m for m in ordered if int(m["id"]) > int(query["after"])][:limit]
        elif "around" in query:
            pivot = int(query["around"])
            older = (
                [m for m in ordered if int(m["id"]) < pivot][-(limit // 2) :] if limit > 1 else []
            )
            rest = [m for m in ordered if int(m["id"]) >= pivot][: limit - len(older)]
            chosen = older + rest
        else:
            chosen = ordered[-limit:]
        return _Reply(200, list(reversed(chosen)))

    async def _get_message(self, call: _Call) -> _Reply:
        message = self._messages.get(int(call.params["message_id"]))
        if message is None or int(message["channel_id"]) != int(call.params["channel_id"]):
            return _error(404, 10008)
        return _Reply(200, copy.deepcopy(message))

    def _channel_slot(self, channel_id: int) -> tuple[_Reply | None, dict[str, str]]:
        """Take one slot of the channel's message bucket: (429 or None, headers to send)."""
        if self._channel_limit is None:
            return None, {}
        per, seconds = self._channel_limit
        window = self._channel_windows.setdefault(channel_id, _Window(per, seconds))
        allowed, remaining, reset_after = window.take(time.monotonic())
        headers = _ratelimit_headers(
            per, remaining, reset_after, _bucket_hash("POST /channels/{channel_id}/messages")
        )
        if allowed:
            return None, headers
        self.rate_limit_hits["channel"] += 1
        return _too_many(reset_after, global_=False, scope="user", headers=headers), headers

    def _effective_mentions(
        self, content: str, allowed: Json | None, replied_author: int | None
    ) -> tuple[list[int], list[int], bool]:
        """Who a bot message really pings: the content's mentions filtered by allowed_mentions."""
        users = _ids(_USER_MENTION.findall(content))
        roles = _ids(_ROLE_MENTION.findall(content))
        everyone = bool(_EVERYONE_MENTION.search(content))
        if allowed is None:
            # No allowed_mentions: everything parses, and a reply pings its author.
            return [*users, *([replied_author] if replied_author else [])], roles, everyone
        parse = set(allowed.get("parse") or [])
        allowed_users = set(_ids(allowed.get("users") or []))
        allowed_roles = set(_ids(allowed.get("roles") or []))
        users = [u for u in users if "users" in parse or u in allowed_users]
        roles = [r for r in roles if "roles" in parse or r in allowed_roles]
        if replied_author and allowed.get("replied_user"):
            users.append(replied_author)
        return users, roles, everyone and "everyone" in parse

    def _bot_message(
        self,
        channel_id: int,
        body: Json,
        files: Sequence[UploadedFile],
        *,
        msg_type: int = MESSAGE_DEFAULT,
        flags: int | None = None,
        extra: Json | None = None,
    ) -> Json | _Reply:
        """A message the bot creates from a REST body, or the error Discord would give."""
        reference = referenced = None
        raw_reference = body.get("message_reference")
        if raw_reference and raw_reference.get("message_id"):
            referenced = self._messages.get(int(raw_reference["message_id"]))
            if referenced is None:
                if raw_reference.get("fail_if_not_exists", True):
                    return _form_error(
                        ["message_reference"],
                        "MESSAGE_REFERENCE_UNKNOWN_MESSAGE",
                        "Unknown message",
                    )
            else:
                reference = {
                    "type": 0,
                    "message_id": referenced["id"],
                    "channel_id": referenced["channel_id"],
                    "guild_id": referenced.get("guild_id"),
                }
                msg_type = MESSAGE_REPLY if msg_type == MESSAGE_DEFAULT else msg_type
        content = str(body.get("content") or "")
        allowed = body.get("allowed_mentions")
        replied_author = int(referenced["author"]["id"]) if referenced else None
        mention_ids, role_ids, everyone = self._effective_mentions(content, allowed, replied_author)
        message = self._build_message(
            channel_id,
            self.world.bot.id,
            content=content,
            embeds=body.get("embeds") or [],
            components=body.get("components") or [],
            attachments=self._uploaded_attachments(channel_id, body, files, keep=[]),
            flags=int(body.get("flags") or 0) if flags is None else flags,
            mention_ids=mention_ids,
            role_ids=role_ids,
            everyone=everyone,
            reference=reference,
            referenced=referenced,
            msg_type=msg_type,
            extra=extra,
        )
        message["tts"] = bool(body.get("tts", False))
        # Kept as received (not a Discord field) so tests can assert what the bot allowed to ping.
        if allowed is not None:
            message["allowed_mentions"] = allowed
        if body.get("nonce") is not None:
            message["nonce"] = body["nonce"]
        return message

    def _uploaded_attachments(
        self, channel_id: int, body: Json, files: Sequence[UploadedFile], *, keep: list[Json]
    ) -> list[Json]:
        """Existing attachments the body keeps (by id) plus the uploaded files."""
        described = {str(a.get("id")): a for a in body.get("attachments") or []}
        kept = [a for a in keep if a["id"] in described] if "attachments" in body else list(keep)
        for position, upload in enumerate(files):
            index = _FILE_FIELD.match(upload.field)
            key = index.group(1) if index else str(position)
            description = described.get(key, {})
            filename = description.get("filename") or upload.filename
            # discord.py labels every file application/octet-stream; Discord sniffs the real type.
            kept.append(
                self._attachment(
                    channel_id, filename, upload.data, None, description.get("description")
                )
            )
        return kept

    async def _create_message(self, call: _Call) -> _Reply:
        channel_id = int(call.params["channel_id"])
        if not self._channel_exists(channel_id):
            return _error(404, 10003)
        limited, headers = self._channel_slot(channel_id)
        if limited is not None:
            return limited
        body = call.json
        error = _validate_message(body, call.files, creating=True)
        if error is not None:
            error.headers.update(headers)
            return error
        nonce = body.get("nonce")
        if nonce is not None and body.get("enforce_nonce"):
            seen = self._nonces.get((self.world.bot.id, str(nonce)))
            if (
                seen is not None
                and time.monotonic() - seen[1] <= self.nonce_window
                and seen[0] in self._messages
            ):
                # Discord returns the first message again instead of posting a duplicate.
                return _Reply(200, copy.deepcopy(self._messages[seen[0]]), headers)
        message = self._bot_message(channel_id, body, call.files)
        if isinstance(message, _Reply):
            message.headers.update(headers)
            return message
        if nonce is not None and body.get("enforce_nonce"):
            self._nonces[(self.world.bot.id, str(nonce))] = (int(message["id"]), time.monotonic())
        self._store(message)
        await self.dispatch("MESSAGE_CREATE", message)
        return _Reply(200, copy.deepcopy(message), headers)

    def _apply_edit(self, message: Json, body: Json, files: Sequence[UploadedFile]) -> None:
        """Apply an edit body to a stored message, the way Discord merges fields."""
        if "content" in body:
            message["content"] = str(body["content"] or "")
        for key in ("embeds", "components"):
            if key in body:
                message[key] = body[key] or []
        if "allowed_mentions" in body:
            message["allowed_mentions"] = body["allowed_mentions"]
        if "attachments" in body or files:
            message["attachments"] = self._uploaded_attachments(
                int(message["channel_id"]), body, files, keep=message.get("attachments", [])
            )
        flags = int(message.get("flags") or 0) & ~FLAG_LOADING  # any edit ends "thinking..."
        if "flags" in body and body["flags"] is not None:
            # Only SUPPRESS_EMBEDS and IS_COMPONENTS_V2 can change on edit.
            changeable = FLAG_SUPPRESS_EMBEDS | FLAG_COMPONENTS_V2
            flags = (flags & ~changeable) | (int(body["flags"]) & changeable)
        message["flags"] = flags
        if "content" in body or "allowed_mentions" in body:
            referenced = message.get("referenced_message")
            replied_author = int(referenced["author"]["id"]) if referenced else None
            users, roles, everyone = self._effective_mentions(
                message["content"], message.get("allowed_mentions"), replied_author
            )
            guild_id = self._guild_id_of(int(message["channel_id"]))
            message["mentions"] = [
                m for m in (self._mention_entry(u, guild_id) for u in dict.fromkeys(users)) if m
            ]
            message["mention_roles"] = [str(r) for r in dict.fromkeys(roles)]
            message["mention_everyone"] = everyone
        message["edited_timestamp"] = _iso(time.time())

    async def _edit_stored(self, message: Json, body: Json, files: Sequence[UploadedFile]) -> Json:
        """Edit, record the edit body, and dispatch MESSAGE_UPDATE when others can see it."""
        self._apply_edit(message, body, files)
        message_id = int(message["id"])
        self._edits.setdefault(message_id, []).append(copy.deepcopy(body))
        if self._is_visible(message_id):
            await self.dispatch("MESSAGE_UPDATE", message)
        return copy.deepcopy(message)

    async def _edit_message(self, call: _Call) -> _Reply:
        message = self._messages.get(int(call.params["message_id"]))
        if message is None or int(message["channel_id"]) != int(call.params["channel_id"]):
            return _error(404, 10008)
        if int(message["author"]["id"]) != self.world.bot.id:
            return _error(403, 50005)
        error = _validate_message(call.json, call.files, creating=False)
        if error is not None:
            return error
        return _Reply(200, await self._edit_stored(message, call.json, call.files))

    async def _remove_stored(self, message_id: int) -> None:
        """Delete a message, keep it in ``deleted``, dispatch MESSAGE_DELETE if it was visible."""
        message = self._messages.pop(message_id)
        visible = False
        log = self._channel_log.get(int(message["channel_id"]), [])
        if message_id in log:
            log.remove(message_id)
            visible = True
        self.deleted.append(copy.deepcopy(message))
        if visible:
            event: Json = {"id": message["id"], "channel_id": message["channel_id"]}
            if message.get("guild_id"):
                event["guild_id"] = message["guild_id"]
            await self.dispatch("MESSAGE_DELETE", event)

    async def _delete_message(self, call: _Call) -> _Reply:
        message_id = int(call.params["message_id"])
        message = self._messages.get(message_id)
        if message is None or int(message["channel_id"]) != int(call.params["channel_id"]):
            return _error(404, 10008)
        await self._remove_stored(message_id)
        return _Reply(204)

    async def _typing(self, call: _Call) -> _Reply:
        channel_id = int(call.params["channel_id"])
        if not self._channel_exists(channel_id):
            return _error(404, 10003)
        self.typing.append((channel_id, time.monotonic()))
        return _Reply(204)

    async def _add_reaction(self, call: _Call) -> _Reply:
        message = self._messages.get(int(call.params["message_id"]))
        if message is None:
            return _error(404, 10008)
        emoji = call.params["emoji"]
        name, _, emoji_id = emoji.partition(":")
        reactions = message.setdefault("reactions", [])
        entry = next((r for r in reactions if r["emoji"]["name"] == name), None)
        if entry is None:
            reactions.append(
                {"emoji": {"id": emoji_id or None, "name": name}, "count": 1, "me": True}
            )
        elif not entry["me"]:
            entry.update(count=entry["count"] + 1, me=True)
        return _Reply(204)

    async def _remove_reaction(self, call: _Call) -> _Reply:
        message = self._messages.get(int(call.params["message_id"]))
        if message is None:
            return _error(404, 10008)
        name = call.params["emoji"].partition(":")[0]
        reactions = message.get("reactions", [])
        for entry in list(reactions):
            if entry["emoji"]["name"] == name:
                entry["count"] -= 1
                entry["me"] = False
                if entry["count"] <= 0:
                    reactions.remove(entry)
        return _Reply(204)

    # -- REST: application commands --------------------------------------------------------

    def _command_scope(self, call: _Call) -> int | _Reply | None:
        if int(call.params["app_id"]) != self.world.bot.id:
            return _error(404, 10002)
        if "guild_id" in call.params:
            return self._guild_or_error(call) or int(call.params["guild_id"])
        return None

    def _command_payload(self, scope: int | None, body: Json) -> Json:
        kind = int(body.get("type", 1))
        key = (scope, str(body["name"]), kind)
        # Re-syncing a command keeps its id, as on Discord; a new name gets a new id.
        command_id = self._command_ids.setdefault(key, self._snowflake())
        command = copy.deepcopy(body)
        command.update(
            id=str(command_id),
            application_id=str(self.world.bot.id),
            version=str(self._snowflake()),
            type=kind,
            description=body.get("description") or "",
        )
        command.setdefault("default_member_permissions", None)
        command.setdefault("nsfw", False)
        if scope is not None:
            command["guild_id"] = str(scope)
        return command

    async def _list_commands(self, call: _Call) -> _Reply:
        scope = self._command_scope(call)
        if isinstance(scope, _Reply):
            return scope
        return _Reply(200, self.commands(scope))

    async def _put_commands(self, call: _Call) -> _Reply:
        scope = self._command_scope(call)
        if isinstance(scope, _Reply):
            return scope
        bodies = call.body if isinstance(call.body, list) else []
        error = _validate_commands(bodies)
        if error is not None:
            return error
        commands = [self._command_payload(scope, body) for body in bodies]
        self._commands[scope] = {(c["name"], c["type"]): c for c in commands}
        return _Reply(200, copy.deepcopy(commands))

    async def _post_command(self, call: _Call) -> _Reply:
        scope = self._command_scope(call)
        if isinstance(scope, _Reply):
            return scope
        error = _validate_commands([call.json])
        if error is not None:
            return error
        command = self._command_payload(scope, call.json)
        self._commands.setdefault(scope, {})[(command["name"], command["type"])] = command
        return _Reply(201, copy.deepcopy(command))

    async def _delete_command(self, call: _Call) -> _Reply:
        scope = self._command_scope(call)
        if isinstance(scope, _Reply):
            return scope
        commands = self._commands.get(scope, {})
        for key, command in list(commands.items()):
            if command["id"] == call.params["command_id"]:
                del commands[key]
                return _Reply(204)
        return _error(404, 10063, "Unknown application command")

    # -- REST: interaction callbacks and webhooks ------------------------------------------

    async def _interaction_callback(self, call: _Call) -> _Reply:
        record = self._interactions_by_id.get(int(call.params["interaction_id"]))
        body = call.json
        if record is None or record.token != call.params["token"]:
            return _error(404, 10062)
        reply = await self._accept_callback(record, body, call.files)
        record.callback_attempts.append((reply.status, copy.deepcopy(body)))
        if reply.status < 300 and call.request.query.get("with_response") not in (
            "1",
            "true",
            "True",
        ):
            reply = _Reply(204)
        if record.response is not None and record.response_status is None:
            record.response_status = reply.status
        return reply

    async def _accept_callback(
        self, record: InteractionRecord, body: Json, files: Sequence[UploadedFile]
    ) -> _Reply:
        """Apply an initial response, enforcing "only once" and the 3-second deadline."""
        if record.response is not None:
            return _error(400, 40060)
        late_by = time.monotonic() - record.created_at - self.interaction_deadline
        if late_by > 0:
            # Discord forgets an unacknowledged interaction after 3 s: the token is dead.
            if not record.deadline_missed:
                record.deadline_missed = True
                self.deadline_misses.append(record)
            return _error(404, 10062)
        kind = int(body.get("type", 0))
        data = body.get("data") or {}
        # Updating "the message" needs one: a component's message (or a modal opened from one);
        # a bare acknowledgement (6) is also fine for any modal submit, never for a command.
        if (kind == CALLBACK_UPDATE_MESSAGE and record.source_message_id is None) or (
            kind == CALLBACK_DEFERRED_UPDATE_MESSAGE
            and record.type not in (INTERACTION_MESSAGE_COMPONENT, INTERACTION_MODAL_SUBMIT)
        ):
            return _form_error(
                ["type"], "INTERACTION_RESPONSE_TYPE_INVALID", "Invalid interaction response type"
            )
        if kind in (CALLBACK_CHANNEL_MESSAGE, CALLBACK_UPDATE_MESSAGE):
            error = _validate_message(data, files, creating=kind == CALLBACK_CHANNEL_MESSAGE)
            if error is not None:
                return error
        message: Json | None = None
        if kind in (CALLBACK_CHANNEL_MESSAGE, CALLBACK_DEFERRED_CHANNEL_MESSAGE):
            ephemeral = bool(int(data.get("flags") or 0) & FLAG_EPHEMERAL)
            if kind == CALLBACK_DEFERRED_CHANNEL_MESSAGE:
                # "Otomo is thinking...": an empty loading message until @original is edited.
                created = self._bot_message(
                    record.channel_id,
                    {},
                    [],
                    flags=FLAG_LOADING | (FLAG_EPHEMERAL if ephemeral else 0),
                    extra=self._interaction_extra(record),
                )
            else:
                created = self._bot_message(
                    record.channel_id,
                    data,
                    files,
                    msg_type=self._reply_type(record),
                    extra=self._interaction_extra(record),
                )
            if isinstance(created, _Reply):
                return created
            message = created
            self._store(message, visible=not ephemeral)
            record.original_message_id = int(message["id"])
        elif kind in (CALLBACK_DEFERRED_UPDATE_MESSAGE, CALLBACK_UPDATE_MESSAGE):
            record.original_message_id = record.source_message_id
        record.response = copy.deepcopy(body)
        self._notify()
        if message is not None and self._is_visible(int(message["id"])):
            await self.dispatch("MESSAGE_CREATE", message)
        if kind == CALLBACK_UPDATE_MESSAGE and record.source_message_id in self._messages:
            message = await self._edit_stored(self._messages[record.source_message_id], data, files)
        interaction: Json = {"id": str(record.id), "type": record.type}
        if record.original_message_id is not None:
            stored = self._messages.get(record.original_message_id, {})
            interaction.update(
                response_message_id=str(record.original_message_id),
                response_message_loading=bool(int(stored.get("flags") or 0) & FLAG_LOADING),
                response_message_ephemeral=bool(int(stored.get("flags") or 0) & FLAG_EPHEMERAL),
            )
        result: Json = {"interaction": interaction}
        if message is not None:
            result["resource"] = {"type": kind, "message": copy.deepcopy(message)}
        return _Reply(200, result)

    def _reply_type(self, record: InteractionRecord) -> int:
        return (
            MESSAGE_CHAT_INPUT_COMMAND
            if record.type == INTERACTION_APPLICATION_COMMAND
            else MESSAGE_DEFAULT
        )

    def _interaction_extra(self, record: InteractionRecord) -> Json:
        """Fields Discord puts on messages that answer an interaction."""
        user = self._user_or_fail(record.user_id)
        return {
            "webhook_id": str(self.world.bot.id),
            "application_id": str(self.world.bot.id),
            "interaction_metadata": {
                "id": str(record.id),
                "type": record.type,
                "user": user.payload(),
                "authorizing_integration_owners": record.payload.get(
                    "authorizing_integration_owners", {}
                ),
            },
        }

    def _webhook_record(self, call: _Call) -> InteractionRecord | _Reply:
        """The interaction a webhook token belongs to, or Discord's error for a bad/expired one."""
        if int(call.params["app_id"]) != self.world.bot.id:
            return _error(404, 10015)
        record = next((r for r in self.interactions if r.token == call.params["token"]), None)
        if record is None:
            return _error(404, 10015)
        if time.monotonic() - record.created_at > self.interaction_token_ttl:
            return _error(401, 50027)
        return record

    def _webhook_message_id(self, record: InteractionRecord, raw: str) -> int | None:
        """Resolve ``@original`` or a followup id to a message of this interaction."""
        if raw == "@original":
            return record.original_message_id
        mine = {int(f["id"]) for f in record.followups}
        if record.original_message_id is not None:
            mine.add(record.original_message_id)
        return int(raw) if raw.isdigit() and int(raw) in mine else None

    async def _create_followup(self, call: _Call) -> _Reply:
        record = self._webhook_record(call)
        if isinstance(record, _Reply):
            return record
        if record.response is None:
            # Followups need an initial response; before it the webhook does not exist yet.
            return _error(404, 10015)
        body = call.json
        error = _validate_message(body, call.files, creating=True)
        if error is not None:
            return error
        original = self._messages.get(record.original_message_id or 0)
        if (
            record.response_type == CALLBACK_DEFERRED_CHANNEL_MESSAGE
            and original is not None
            and int(original.get("flags") or 0) & FLAG_LOADING
        ):
            # The first followup after a deferred reply replaces "thinking...", keeping its
            # ephemerality: defer(ephemeral=True) + followup.send() is ephemeral, and vice versa.
            message = await self._edit_stored(original, body, call.files)
        else:
            flags = int(body.get("flags") or 0)
            created = self._bot_message(
                record.channel_id,
                body,
                call.files,
                msg_type=self._reply_type(record),
                flags=flags,
                extra=self._interaction_extra(record),
            )
            if isinstance(created, _Reply):
                return created
            visible = not flags & FLAG_EPHEMERAL
            self._store(created, visible=visible)
            if visible:
                await self.dispatch("MESSAGE_CREATE", created)
            message = copy.deepcopy(created)
        record.followups.append(message)
        self._notify()
        if call.request.query.get("wait") in ("1", "true", "True"):
            return _Reply(200, message)
        return _Reply(204)

    async def _get_webhook_message(self, call: _Call) -> _Reply:
        record = self._webhook_record(call)
        if isinstance(record, _Reply):
            return record
        message_id = self._webhook_message_id(record, call.params["message_id"])
        if message_id is None or message_id not in self._messages:
            return _error(404, 10008)
        return _Reply(200, copy.deepcopy(self._messages[message_id]))

    async def _edit_webhook_message(self, call: _Call) -> _Reply:
        record = self._webhook_record(call)
        if isinstance(record, _Reply):
            return record
        message_id = self._webhook_message_id(record, call.params["message_id"])
        if message_id is None or message_id not in self._messages:
            return _error(404, 10008)
        error = _validate_message(call.json, call.files, creating=False)
        if error is not None:
            return error
        message = await self._edit_stored(self._messages[message_id], call.json, call.files)
        if call.params["message_id"] == "@original":
            record.original_edits.append(copy.deepcopy(call.json))
        self._notify()
        return _Reply(200, message)

    async def _delete_webhook_message(self, call: _Call) -> _Reply:
        record = self._webhook_record(call)
        if isinstance(record, _Reply):
            return record
        message_id = self._webhook_message_id(record, call.params["message_id"])
        if message_id is None or message_id not in self._messages:
            return _error(404, 10008)
        await self._remove_stored(message_id)
        return _Reply(204)


def point_discord_py_at(fake: FakeDiscord) -> Callable[[], None]:
    """Point discord.py's REST base and gateway at the fake (in-process); returns an undo."""
    import discord.gateway
    import discord.http
    import yarl

    old_base = discord.http.Route.BASE
    old_gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    discord.http.Route.BASE = fake.api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(fake.gateway_url)

    def restore() -> None:
        discord.http.Route.BASE = old_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gateway

    return restore


__all__ = [
    "ADMIN_ID",
    "ADMIN_ROLE_ID",
    "BOT_ID",
    "BOT_ROLE_ID",
    "EVERYONE_ROLE_ID",
    "GENERAL_CHANNEL_ID",
    "GUILD_ID",
    "HANA_ID",
    "MEMBER_ROLE_ID",
    "RANDOM_CHANNEL_ID",
    "TARO_ID",
    "THREAD_ID",
    "FakeChannel",
    "FakeDiscord",
    "FakeMember",
    "FakeRole",
    "FakeUser",
    "Fault",
    "InteractionRecord",
    "RecordedRequest",
    "UploadedFile",
    "World",
    "point_discord_py_at",
]
