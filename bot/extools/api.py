"""The tools API on loopback: register, unregister, clear and list tools from other processes."""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from bot.extools.catalog import ExternalTools
from bot.extools.registration import (
    Refused,
    check_name,
    check_source,
    is_loopback_host,
    parse_registration,
)
from bot.storage.external_tools import ExternalToolRow

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
MAX_BODY_BYTES = 256 * 1024


def _refusal(status: int, field: str | None, sentence: str) -> web.Response:
    return web.json_response({"ok": False, "field": field, "error": sentence}, status=status)


def describe(row: ExternalToolRow) -> dict[str, Any]:
    """A registration as `GET /api/tools` shows it."""
    return {
        "name": row.name,
        "description": row.description,
        "parameters": row.parameters,
        "callback_url": row.callback_url,
        "source": row.source,
        "timeout_seconds": row.timeout_seconds,
        "handlers": row.handlers,
        "guild_id": None if row.guild_id is None else str(row.guild_id),
        "available": row.available,
        "disabled": row.disabled,
        "last_error": row.last_error,
        "registered_at": row.registered_at.isoformat(),
    }


class ToolsAPI:
    """An aiohttp server in the bot process; off unless TOOLS_API_PORT is set."""

    def __init__(self, tools: ExternalTools, token: str, host: str, port: int) -> None:
        self.tools = tools
        self._token = token.encode()
        self.host = host
        self.port = port
        self._runner: web.AppRunner | None = None

    def app(self) -> web.Application:
        """The web application (also used directly by tests)."""
        app = web.Application(middlewares=[self._guard], client_max_size=MAX_BODY_BYTES)
        app.router.add_post("/api/tools/register", self._register)
        app.router.add_post("/api/tools/unregister", self._unregister)
        app.router.add_post("/api/tools/clear", self._clear)
        app.router.add_get("/api/tools", self._list)
        return app

    async def start(self) -> bool:
        """Listen on host:port; False (logged with a sentence) when the port is taken."""
        runner = web.AppRunner(self.app(), access_log=None)
        await runner.setup()
        try:
            await web.TCPSite(runner, self.host, self.port).start()
        except OSError as exc:
            await runner.cleanup()
            log.error(
                "The tools API could not listen on %s:%s (%s): another process holds the port; "
                "set a free TOOLS_API_PORT. The bot runs on, and tools already registered "
                "keep working.",
                self.host,
                self.port,
                exc.strerror or exc,
            )
            return False
        self._runner = runner
        log.info("Tools API listening on http://%s:%s/api/tools", self.host, self.port)
        return True

    async def stop(self) -> None:
        """Stop listening."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        # Two gates: the caller must be on this machine and must know the token.
        if not is_loopback_host(request.remote):
            return _refusal(403, None, "Only processes on this machine may use the tools API.")
        given = request.headers.get("Authorization", "")
        scheme, _, token = given.partition(" ")
        known = hmac.compare_digest(token.strip().encode(), self._token)
        if scheme.lower() != "bearer" or not known:
            return _refusal(
                401,
                "Authorization",
                "Authorization is missing or wrong: send the header "
                "`Authorization: Bearer <TOOLS_API_TOKEN>` with the token from the bot's .env.",
            )
        try:
            return await handler(request)
        except Refused as refused:
            return _refusal(refused.status, refused.field, refused.sentence)

    async def _body(self, request: web.Request) -> dict[str, Any]:
        try:
            body = await request.json(loads=json.loads)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise Refused(
                "body", "The body must be JSON (Content-Type: application/json).", 400
            ) from None
        if not isinstance(body, dict):
            raise Refused("body", "The body must be a JSON object.", 400)
        return body

    async def _register(self, request: web.Request) -> web.Response:
        registration = parse_registration(await self._body(request), self.tools.handler_names)
        row = await self.tools.register(registration)
        return web.json_response(
            {
                "ok": True,
                "registered": row.name,
                "handlers": row.handlers or sorted(self.tools.handler_names),
                "guild_id": None if row.guild_id is None else str(row.guild_id),
                "disabled": row.disabled,
            }
        )

    async def _unregister(self, request: web.Request) -> web.Response:
        name = check_name((await self._body(request)).get("name"))
        if not await self.tools.unregister(name):
            raise Refused("name", f"No tool called {name!r} is registered.", 404)
        return web.json_response({"ok": True, "unregistered": name})

    async def _clear(self, request: web.Request) -> web.Response:
        source = check_source((await self._body(request)).get("source"))
        names = await self.tools.clear(source)
        return web.json_response({"ok": True, "source": source, "cleared": names})

    async def _list(self, request: web.Request) -> web.Response:
        source = request.query.get("source")
        rows = await self.tools.store.all()
        shown = [describe(row) for row in rows if source is None or row.source == source]
        return web.json_response({"ok": True, "tools": shown})
