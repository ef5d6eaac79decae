"""The fake's world: one guild with its channels, roles and members, the bot, and their payloads.

Also the vocabulary of Discord payloads the other modules share: permission bits, message flags
and types, interaction and option types, the ids of the default world, and mention syntax.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

Json = dict[str, Any]

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

# How message content mentions users (<@id>, legacy <@!id>), roles and everyone.
USER_MENTION = re.compile(r"<@!?(\d+)>")
ROLE_MENTION = re.compile(r"<@&(\d+)>")
EVERYONE_MENTION = re.compile(r"@(?:everyone|here)\b")


def iso_timestamp(epoch: float) -> str:
    """Discord's ISO-8601 timestamp for a Unix time."""
    return datetime.fromtimestamp(epoch, UTC).isoformat()


def snowflakes(values: Iterable[Any]) -> list[int]:
    """Snowflakes from a JSON list that may hold strings or numbers."""
    return [int(v) for v in values]


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
