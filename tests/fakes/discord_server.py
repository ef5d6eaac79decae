"""An offline fake Discord (REST + gateway) on 127.0.0.1 for the real discord.py client.

The bot reaches it through ``discord.http.Route.BASE = fake.api_base`` and
``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(fake.gateway_url)``
(:func:`point_discord_py_at` does both for in-process tests; a bot subprocess gets the two URLs
through its settings). All state lives in the :class:`FakeDiscord` object in the test process:
tests drive users (messages, clicks, slash commands, modals) with its ``async`` helpers and
await what the bot did with ``wait_for_message`` / ``wait_for_request`` / ``wait_until``.

This module is the tests' entry point; the fake itself lives in :mod:`tests.fakes.discord`.
"""

from __future__ import annotations

from tests.fakes.discord.fake import FakeDiscord, point_discord_py_at
from tests.fakes.discord.records import InteractionRecord, RecordedRequest, UploadedFile
from tests.fakes.discord.rest import Fault, Hold
from tests.fakes.discord.world import (
    ADMIN_ID,
    ADMIN_ROLE_ID,
    BOT_ID,
    BOT_ROLE_ID,
    EVERYONE_ROLE_ID,
    GENERAL_CHANNEL_ID,
    GUILD_ID,
    HANA_ID,
    MEMBER_ROLE_ID,
    RANDOM_CHANNEL_ID,
    SECOND_ADMIN_ROLE_ID,
    SECOND_BOT_ROLE_ID,
    SECOND_EVERYONE_ROLE_ID,
    SECOND_GENERAL_CHANNEL_ID,
    SECOND_GUILD_ID,
    SECOND_MEMBER_ROLE_ID,
    SECOND_OWNER_ID,
    SECOND_RANDOM_CHANNEL_ID,
    SORA_ID,
    TARO_ID,
    THREAD_ID,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeRole,
    FakeUser,
    Json,
    World,
)

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
    "SECOND_ADMIN_ROLE_ID",
    "SECOND_BOT_ROLE_ID",
    "SECOND_EVERYONE_ROLE_ID",
    "SECOND_GENERAL_CHANNEL_ID",
    "SECOND_GUILD_ID",
    "SECOND_MEMBER_ROLE_ID",
    "SECOND_OWNER_ID",
    "SECOND_RANDOM_CHANNEL_ID",
    "SORA_ID",
    "TARO_ID",
    "THREAD_ID",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeMember",
    "FakeRole",
    "FakeUser",
    "Fault",
    "Hold",
    "InteractionRecord",
    "Json",
    "RecordedRequest",
    "UploadedFile",
    "World",
    "point_discord_py_at",
]
