"""The fake's world: guilds with their own channels, roles and members, the bot, and payloads.

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

# The second guild of ``World.two_guilds()``: its own owner, channels and roles; hana is in both.
# One step of (id >> 22) from the first, so with two shards each guild has its own shard.
SECOND_GUILD_ID = GUILD_ID + (1 << 22)
SECOND_OWNER_ID = 1_200_000_000_000_000_005  # "yuki": owns the second guild, not in the first
SORA_ID = 1_200_000_000_000_000_006  # a member of the second guild only, no role
SECOND_GENERAL_CHANNEL_ID = 1_300_000_000_000_000_011  # #lobby
SECOND_RANDOM_CHANNEL_ID = 1_300_000_000_000_000_012  # #chat
SECOND_ADMIN_ROLE_ID = 1_400_000_000_000_000_011  # "Mods": MANAGE_GUILD, held by yuki
SECOND_MEMBER_ROLE_ID = 1_400_000_000_000_000_012
SECOND_BOT_ROLE_ID = 1_400_000_000_000_000_013
SECOND_EVERYONE_ROLE_ID = SECOND_GUILD_ID

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
    # Member overwrites: user id -> permission bits denied to that member in this channel.
    denied: dict[int, int] = field(default_factory=dict)
    # Discord's permission overwrites ({"id", "type": 0 role / 1 member, "allow", "deny"}), as
    # the client reads them for its own permission checks.
    overwrites: list[Json] = field(default_factory=list)


@dataclass
class FakeMember:
    """A guild member: a user id plus its role ids (@everyone is implied)."""

    user_id: int
    role_ids: list[int] = field(default_factory=list)
    nick: str | None = None


@dataclass
class FakeGuild:
    """One guild: its roles, channels (and threads) and members; @everyone has the guild's id."""

    id: int
    name: str
    owner_id: int
    roles: list[FakeRole]
    channels: list[FakeChannel]
    members: list[FakeMember]
    locale: str = "ja"
    joined_at: str = "2024-01-01T00:00:00+00:00"

    def member(self, user_id: int) -> FakeMember | None:
        """The member with this user id."""
        return next((m for m in self.members if m.user_id == user_id), None)

    def role(self, role_id: int) -> FakeRole | None:
        """The role with this id."""
        return next((r for r in self.roles if r.id == role_id), None)

    def channel(self, channel_id: int) -> FakeChannel | None:
        """The channel or thread with this id."""
        return next((c for c in self.channels if c.id == channel_id), None)

    def permissions(self, user_id: int) -> int:
        """Guild-level permissions, computed like Discord (channel overwrites are left to the
        client that reads them)."""
        if user_id == self.owner_id:
            return ALL_PERMISSIONS
        member = self.member(user_id)
        if member is None:
            return 0
        everyone = self.role(self.id)
        perms = everyone.permissions if everyone else 0
        for role_id in member.role_ids:
            role = self.role(role_id)
            perms |= role.permissions if role else 0
        return ALL_PERMISSIONS if perms & ADMINISTRATOR else perms

    def channel_permissions(self, user_id: int, channel_id: int) -> int:
        """Permissions in one channel: the guild's, less the member's overwrite there (the
        owner and administrators are never denied anything, like Discord)."""
        perms = self.permissions(user_id)
        channel = self.channel(channel_id)
        if perms == ALL_PERMISSIONS or channel is None:
            return perms
        return perms & ~channel.denied.get(user_id, 0)


@dataclass
class World:
    """The bot, the users, and the guilds the bot is in (the first is "the" guild of old tests).

    ``guild_id``, ``channels``, ``members``, ``roles``, ``owner_id`` and ``locale`` read the first
    guild; methods taking ``guild_id=None`` mean the first guild too, and lookups by channel or
    role id search every guild.
    """

    bot: FakeUser
    users: list[FakeUser]
    guilds: list[FakeGuild]
    # The language of the members' Discord clients, sent as each interaction's `locale`.
    client_locale: str = "ja"

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
        guild = FakeGuild(GUILD_ID, "Otomo Test", ADMIN_ID, roles, channels, members)
        return cls(bot, users, [guild])

    @classmethod
    def two_guilds(cls) -> World:
        """The default world plus "Otomo Second" (owner yuki, #lobby and #chat; hana, sora).

        yuki has Manage Server there (owner and "Mods" role) and is no member of the first
        guild; kenji, the first guild's owner, is no member of the second; hana is in both.
        """
        world = cls.default()
        world.users.extend(
            [FakeUser(SECOND_OWNER_ID, "yuki", "Yuki"), FakeUser(SORA_ID, "sora", "Sora")]
        )
        roles = [
            FakeRole(SECOND_EVERYONE_ROLE_ID, "@everyone", EVERYONE_PERMISSIONS, position=0),
            FakeRole(
                SECOND_MEMBER_ROLE_ID, "Regular", EVERYONE_PERMISSIONS, position=1, mentionable=True
            ),
            FakeRole(SECOND_ADMIN_ROLE_ID, "Mods", MANAGE_GUILD, position=3),
            FakeRole(SECOND_BOT_ROLE_ID, "Otomo", BOT_PERMISSIONS, position=2, bot_id=BOT_ID),
        ]
        channels = [
            FakeChannel(SECOND_GENERAL_CHANNEL_ID, "lobby", position=0, topic="ロビー"),
            FakeChannel(SECOND_RANDOM_CHANNEL_ID, "chat", position=1),
        ]
        members = [
            FakeMember(SECOND_OWNER_ID, [SECOND_ADMIN_ROLE_ID]),
            FakeMember(HANA_ID, [SECOND_MEMBER_ROLE_ID]),
            FakeMember(SORA_ID, []),
            FakeMember(BOT_ID, [SECOND_BOT_ROLE_ID]),
        ]
        world.guilds.append(
            FakeGuild(SECOND_GUILD_ID, "Otomo Second", SECOND_OWNER_ID, roles, channels, members)
        )
        return world

    # -- the first guild, as the single-guild world had it ---------------------------------

    @property
    def first(self) -> FakeGuild:
        """The first guild ("Otomo Test" in the default worlds)."""
        return self.guilds[0]

    @property
    def guild_id(self) -> int:
        """The first guild's id."""
        return self.first.id

    @property
    def guild_name(self) -> str:
        """The first guild's name."""
        return self.first.name

    @property
    def owner_id(self) -> int:
        """The first guild's owner (also the application's owner)."""
        return self.first.owner_id

    @property
    def roles(self) -> list[FakeRole]:
        """The first guild's roles (the list itself: append to add one)."""
        return self.first.roles

    @property
    def channels(self) -> list[FakeChannel]:
        """The first guild's channels and threads (the list itself)."""
        return self.first.channels

    @property
    def members(self) -> list[FakeMember]:
        """The first guild's members (the list itself)."""
        return self.first.members

    @property
    def locale(self) -> str:
        """The first guild's locale."""
        return self.first.locale

    @property
    def joined_at(self) -> str:
        """When the bot joined the first guild."""
        return self.first.joined_at

    # -- lookups ---------------------------------------------------------------------------

    def guild(self, guild_id: int | None = None) -> FakeGuild | None:
        """The guild with this id (the first when None), or None if the bot is not in it."""
        if guild_id is None:
            return self.first
        return next((g for g in self.guilds if g.id == int(guild_id)), None)

    def _guild(self, guild_id: int | None) -> FakeGuild:
        found = self.guild(guild_id)
        if found is None:
            known = [g.id for g in self.guilds]
            raise ValueError(f"unknown guild {guild_id}; the world has {known}")
        return found

    def guild_of_channel(self, channel_id: int) -> FakeGuild | None:
        """The guild holding a channel or thread, None for a DM or unknown channel."""
        return next((g for g in self.guilds if g.channel(channel_id) is not None), None)

    def user(self, user_id: int) -> FakeUser | None:
        """The user (or the bot) with this id."""
        if user_id == self.bot.id:
            return self.bot
        return next((u for u in self.users if u.id == user_id), None)

    def member(self, user_id: int, guild_id: int | None = None) -> FakeMember | None:
        """The member with this user id in a guild (the first when None)."""
        return self._guild(guild_id).member(user_id)

    def role(self, role_id: int) -> FakeRole | None:
        """The role with this id, in whichever guild holds it."""
        return next((r for g in self.guilds if (r := g.role(role_id)) is not None), None)

    def channel(self, channel_id: int) -> FakeChannel | None:
        """The guild channel or thread with this id, in whichever guild holds it."""
        return next((c for g in self.guilds if (c := g.channel(channel_id)) is not None), None)

    def permissions(self, user_id: int, guild_id: int | None = None) -> int:
        """Guild-level permissions of a user in a guild (the first when None)."""
        return self._guild(guild_id).permissions(user_id)

    # -- payloads --------------------------------------------------------------------------

    def member_payload(
        self,
        user_id: int,
        *,
        with_user: bool = True,
        with_permissions: bool = False,
        guild_id: int | None = None,
    ) -> Json | None:
        """The guild member object, or None for someone outside the guild."""
        guild = self._guild(guild_id)
        member = guild.member(user_id)
        user = self.user(user_id)
        if member is None or user is None:
            return None
        data: Json = {
            "roles": [str(r) for r in member.role_ids],
            "nick": member.nick,
            "avatar": None,
            "banner": None,
            "joined_at": guild.joined_at,
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
            data["permissions"] = str(guild.permissions(user_id))
        return data

    def channel_payload(self, channel: FakeChannel, *, for_user: int | None = None) -> Json:
        """The channel object; ``for_user`` adds the resolved ``permissions`` like interactions."""
        guild = self.guild_of_channel(channel.id) or self.first
        data: Json = {
            "id": str(channel.id),
            "type": channel.type,
            "guild_id": str(guild.id),
            "name": channel.name,
            "parent_id": str(channel.parent_id) if channel.parent_id else None,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "flags": 0,
            "nsfw": False,
        }
        if channel.type in (10, 11, 12):
            data.update(
                owner_id=str(channel.owner_id or guild.owner_id),
                message_count=0,
                member_count=len(guild.members),
                total_message_sent=0,
                thread_metadata={
                    "archived": False,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": guild.joined_at,
                    "locked": False,
                    "create_timestamp": guild.joined_at,
                },
            )
        else:
            data.update(
                position=channel.position,
                topic=channel.topic,
                permission_overwrites=[
                    *channel.overwrites,
                    *(
                        {"id": str(user), "type": 1, "allow": "0", "deny": str(bits)}
                        for user, bits in channel.denied.items()
                    ),
                ],
            )
        if for_user is not None:
            data["permissions"] = str(guild.channel_permissions(for_user, channel.id))
        return data

    def guild_payload(self, guild_id: int | None = None) -> Json:
        """The guild object of ``GET /guilds/{id}`` (the first guild when None)."""
        guild = self._guild(guild_id)
        return {
            "id": str(guild.id),
            "name": guild.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(guild.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 1,
            "explicit_content_filter": 0,
            "roles": [r.payload() for r in guild.roles],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "system_channel_id": str(guild.channels[0].id) if guild.channels else None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": guild.locale,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
        }

    def guild_create_payload(self, *, with_members: bool, guild_id: int | None = None) -> Json:
        """GUILD_CREATE; without GUILD_MEMBERS only the bot's own member comes, as on Discord."""
        guild = self._guild(guild_id)
        members = [
            self.member_payload(m.user_id, guild_id=guild.id)
            for m in guild.members
            if with_members or m.user_id == self.bot.id
        ]
        data = self.guild_payload(guild.id)
        data.update(
            joined_at=guild.joined_at,
            large=False,
            unavailable=False,
            # member_count == len(members) marks the guild "chunked": no REQUEST_MEMBERS needed.
            member_count=len(guild.members),
            members=members,
            channels=[
                self.channel_payload(c) for c in guild.channels if c.type not in (10, 11, 12)
            ],
            threads=[self.channel_payload(c) for c in guild.channels if c.type in (10, 11, 12)],
            voice_states=[],
            presences=[],
            stage_instances=[],
            guild_scheduled_events=[],
            soundboard_sounds=[],
        )
        return data
