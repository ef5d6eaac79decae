"""FakeDiscord: the gateway, the people, the message store and the REST routes put together."""

from __future__ import annotations

from collections.abc import Callable

from aiohttp import web

from tests.fakes.discord.gateway import GatewayServer
from tests.fakes.discord.people import People
from tests.fakes.discord.rest import RestServer, compile_routes
from tests.fakes.discord.rest_channels import CHANNEL_ROUTES, ChannelRoutes
from tests.fakes.discord.rest_commands import COMMAND_ROUTES, CommandRoutes
from tests.fakes.discord.rest_guilds import GUILD_ROUTES, GuildRoutes
from tests.fakes.discord.rest_interactions import INTERACTION_ROUTES, InteractionRoutes


class FakeDiscord(
    People, ChannelRoutes, InteractionRoutes, CommandRoutes, GuildRoutes, GatewayServer, RestServer
):
    """Fake Discord REST API and gateway on 127.0.0.1; ``async with FakeDiscord() as fake:``."""

    # The constructor's arguments are FakeDiscordState's. No two tables share a path prefix, so
    # their order does not matter; within one table the first match wins.
    _routes = compile_routes((*GUILD_ROUTES, *CHANNEL_ROUTES, *COMMAND_ROUTES, *INTERACTION_ROUTES))

    def _app(self) -> web.Application:
        """The gateway websocket at ``/`` and ``/resume/``; REST and the CDN everywhere else."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/", self._gateway)
        app.router.add_get("/resume/", self._gateway)
        app.router.add_route("*", "/{tail:.*}", self._rest)
        return app


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
