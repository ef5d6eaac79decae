"""REST routes of users, DMs, gateway discovery, the application and the guild."""

from __future__ import annotations

from tests.fakes.discord.gateway import (
    INTENT_GUILD_MEMBERS,
    INTENT_MESSAGE_CONTENT,
    PRIVILEGED_INTENTS,
)
from tests.fakes.discord.rest import RestCall, Route
from tests.fakes.discord.rules import RestReply, error_reply
from tests.fakes.discord.state import FakeDiscordState
from tests.fakes.discord.world import World

# First match wins, so "@me" comes before "{user_id}".
GUILD_ROUTES: tuple[Route, ...] = (
    ("GET", "/users/@me", "_get_me"),
    ("POST", "/users/@me/channels", "_create_dm"),
    ("GET", "/users/{user_id}", "_get_user"),
    ("GET", "/gateway", "_get_gateway"),
    ("GET", "/gateway/bot", "_get_gateway_bot"),
    ("GET", "/oauth2/applications/@me", "_get_application"),
    ("GET", "/applications/@me", "_get_application"),
    ("GET", "/guilds/{guild_id}", "_get_guild"),
    ("GET", "/guilds/{guild_id}/channels", "_get_guild_channels"),
    ("GET", "/guilds/{guild_id}/roles", "_get_roles"),
    ("GET", "/guilds/{guild_id}/members/{user_id}", "_get_member"),
)


def guild_error(world: World, call: RestCall) -> RestReply | None:
    """404 Unknown Guild unless the path names a guild of the world."""
    return None if world.guild(int(call.params["guild_id"])) else error_reply(404, 10004)


class GuildRoutes(FakeDiscordState):
    """Who the bot is, whom it can DM, where the gateway is, and what the guild holds."""

    # -- users and DMs ---------------------------------------------------------------------

    async def _get_me(self, call: RestCall) -> RestReply:
        return RestReply(
            200, {**self.world.bot.payload(), "verified": True, "mfa_enabled": False, "flags": 0}
        )

    async def _get_user(self, call: RestCall) -> RestReply:
        user = self.world.user(int(call.params["user_id"]))
        return RestReply(200, user.payload()) if user else error_reply(404, 10013)

    async def _create_dm(self, call: RestCall) -> RestReply:
        user = self.world.user(int(call.json.get("recipient_id", 0)))
        if user is None:
            return error_reply(404, 10013)
        if user.bot:
            return error_reply(400, 50007)
        channel_id = self.dm_channel_id(user.id)
        return RestReply(
            200,
            {
                "id": str(channel_id),
                "type": 1,
                "recipients": [user.payload()],
                "last_message_id": None,
                "flags": 0,
            },
        )

    # -- gateway and application -----------------------------------------------------------

    async def _get_gateway(self, call: RestCall) -> RestReply:
        return RestReply(200, {"url": self.gateway_url.rstrip("/")})

    async def _get_gateway_bot(self, call: RestCall) -> RestReply:
        limit = {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1}
        return RestReply(
            200,
            {
                "url": self.gateway_url.rstrip("/"),
                "shards": self.shards,
                "session_start_limit": limit,
            },
        )

    def _application_flags(self) -> int:
        """GATEWAY_*_LIMITED flags for the privileged intents "switched on in the portal"."""
        allowed = PRIVILEGED_INTENTS if self.allowed_intents is None else self.allowed_intents
        flags = 0
        if allowed & INTENT_GUILD_MEMBERS:
            flags |= 1 << 15
        if allowed & INTENT_MESSAGE_CONTENT:
            flags |= 1 << 19
        return flags

    async def _get_application(self, call: RestCall) -> RestReply:
        owner = self.world.user(self.world.owner_id) or self.world.bot
        return RestReply(
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
                "flags": self._application_flags(),
                "bot": self.world.bot.payload(),
                "interactions_endpoint_url": None,
                "redirect_uris": [],
                "tags": [],
                "approximate_guild_count": len(self.world.guilds),
            },
        )

    # -- guild -----------------------------------------------------------------------------

    async def _get_guild(self, call: RestCall) -> RestReply:
        error = guild_error(self.world, call)
        if error:
            return error
        guild_id = int(call.params["guild_id"])
        data = {**self.world.guild_payload(guild_id)}
        if call.request.query.get("with_counts") in ("true", "1", "True"):
            members = self.world.guild(guild_id)
            data.update(
                approximate_member_count=len(members.members) if members else 0,
                approximate_presence_count=0,
            )
        return RestReply(200, data)

    async def _get_guild_channels(self, call: RestCall) -> RestReply:
        guild = self.world.guild(int(call.params["guild_id"]))
        if guild is None:
            return error_reply(404, 10004)
        channels = [
            self.world.channel_payload(c) for c in guild.channels if c.type not in (10, 11, 12)
        ]
        return RestReply(200, channels)

    async def _get_roles(self, call: RestCall) -> RestReply:
        guild = self.world.guild(int(call.params["guild_id"]))
        if guild is None:
            return error_reply(404, 10004)
        return RestReply(200, [r.payload() for r in guild.roles])

    async def _get_member(self, call: RestCall) -> RestReply:
        error = guild_error(self.world, call)
        if error:
            return error
        member = self.world.member_payload(
            int(call.params["user_id"]), guild_id=int(call.params["guild_id"])
        )
        return RestReply(200, member) if member else error_reply(404, 10007, "Unknown Member")
