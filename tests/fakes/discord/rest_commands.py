"""REST routes of application commands, global and per guild, as the bot syncs them."""

from __future__ import annotations

import copy

from tests.fakes.discord.rest import RestCall, Route
from tests.fakes.discord.rest_guilds import guild_error
from tests.fakes.discord.rules import RestReply, error_reply, validate_commands
from tests.fakes.discord.state import FakeDiscordState
from tests.fakes.discord.world import Json

COMMAND_ROUTES: tuple[Route, ...] = (
    ("GET", "/applications/{app_id}/commands", "_list_commands"),
    ("PUT", "/applications/{app_id}/commands", "_put_commands"),
    ("POST", "/applications/{app_id}/commands", "_post_command"),
    ("DELETE", "/applications/{app_id}/commands/{command_id}", "_delete_command"),
    ("GET", "/applications/{app_id}/guilds/{guild_id}/commands", "_list_commands"),
    ("PUT", "/applications/{app_id}/guilds/{guild_id}/commands", "_put_commands"),
    ("POST", "/applications/{app_id}/guilds/{guild_id}/commands", "_post_command"),
    ("DELETE", "/applications/{app_id}/guilds/{guild_id}/commands/{command_id}", "_delete_command"),
)


class CommandRoutes(FakeDiscordState):
    """List, overwrite, create and delete commands; re-synced commands keep their ids."""

    def _command_scope(self, call: RestCall) -> int | RestReply | None:
        if int(call.params["app_id"]) != self.world.bot.id:
            return error_reply(404, 10002)
        if "guild_id" in call.params:
            return guild_error(self.world, call) or int(call.params["guild_id"])
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

    async def _list_commands(self, call: RestCall) -> RestReply:
        scope = self._command_scope(call)
        if isinstance(scope, RestReply):
            return scope
        return RestReply(200, self.commands(scope))

    async def _put_commands(self, call: RestCall) -> RestReply:
        scope = self._command_scope(call)
        if isinstance(scope, RestReply):
            return scope
        bodies = call.body if isinstance(call.body, list) else []
        error = validate_commands(bodies)
        if error is not None:
            return error
        commands = [self._command_payload(scope, body) for body in bodies]
        self._commands[scope] = {(c["name"], c["type"]): c for c in commands}
        return RestReply(200, copy.deepcopy(commands))

    async def _post_command(self, call: RestCall) -> RestReply:
        scope = self._command_scope(call)
        if isinstance(scope, RestReply):
            return scope
        error = validate_commands([call.json])
        if error is not None:
            return error
        command = self._command_payload(scope, call.json)
        self._commands.setdefault(scope, {})[(command["name"], command["type"])] = command
        return RestReply(201, copy.deepcopy(command))

    async def _delete_command(self, call: RestCall) -> RestReply:
        scope = self._command_scope(call)
        if isinstance(scope, RestReply):
            return scope
        commands = self._commands.get(scope, {})
        for key, command in list(commands.items()):
            if command["id"] == call.params["command_id"]:
                del commands[key]
                return RestReply(204)
        return error_reply(404, 10063, "Unknown application command")
