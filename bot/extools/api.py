"""The tools API on loopback: register, unregister, clear and list tools from other processes.

Callers authenticate with the shared `TOOLS_API_TOKEN` or with a plugin's own token (see
`bot.extools.credentials`); a plugin's token acts only on its own source. Whatever arrives,
the answer is JSON: a 4xx with a sentence and the field to fix, never a crash page.
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from bot.extools.catalog import ExternalTools
from bot.extools.credentials import SHARED, Caller, Credentials
from bot.extools.registration import (
    Refused,
    body_problem,
    check_name,
    check_source,
    is_loopback_host,
    parse_registration,
    shown_url,
)
from bot.runtime.web_server import WebServer
from bot.storage.external_tools import ExternalToolRow
from bot.storage.outage import is_unreachable

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
MAX_BODY_BYTES = 256 * 1024
CALLER = web.RequestKey("caller", Caller)

# What aiohttp's own refusals mean to a plugin author.
_HTTP_SENTENCES = {
    404: "There is no such endpoint: use /api/tools/register, unregister, clear or GET /api/tools",
    405: "This endpoint does not take that method: register, unregister and clear are POST, "
    "the list is GET",
    413: f"The body is larger than {MAX_BODY_BYTES // 1024} KB: register tools one at a time "
    "and keep their schemas short",
}


def _refusal(status: int, field: str | None, sentence: str) -> web.Response:
    return web.json_response({"ok": False, "field": field, "error": sentence}, status=status)


class ToolsAPI(WebServer):
    """An aiohttp server in the bot process; off unless TOOLS_API_PORT is set."""

    def __init__(
        self,
        tools: ExternalTools,
        token: str,
        host: str,
        port: int,
        credentials: Credentials | None = None,
    ) -> None:
        super().__init__(host, port)
        self.tools = tools
        self._token = token.encode()
        self._credentials = credentials

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
        try:
            await self.listen()
        except OSError as exc:
            log.error(
                "The tools API could not listen on %s:%s (%s): another process holds the port; "
                "set a free TOOLS_API_PORT. The bot runs on, and tools already registered "
                "keep working.",
                self.host,
                self.port,
                exc.strerror or exc,
            )
            return False
        log.info("Tools API listening on http://%s:%s/api/tools", self.host, self.port)
        return True

    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        # Two gates: the caller must be on this machine and must hold a token.
        if not is_loopback_host(request.remote):
            return _refusal(403, None, "Only processes on this machine may use the tools API.")
        try:
            caller = await self._caller(request)
            if caller is None:
                return _refusal(
                    401,
                    "Authorization",
                    "Authorization is missing or wrong: send the header "
                    "`Authorization: Bearer <token>` with the plugin's own token (python -m bot "
                    "tools token create SOURCE) or the TOOLS_API_TOKEN from the bot's .env.",
                )
            request[CALLER] = caller
            return await handler(request)
        except Refused as refused:
            return _refusal(refused.status, refused.field, refused.sentence)
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            sentence = _HTTP_SENTENCES.get(exc.status, exc.reason)
            return _refusal(exc.status, None, sentence.rstrip(".") + ".")
        except Exception as exc:
            if is_unreachable(exc):
                return _refusal(
                    503,
                    None,
                    "The bot's database is unavailable right now; try again in a few seconds.",
                )
            log.exception("The tools API failed on %s %s", request.method, request.path)
            return _refusal(500, None, "The bot failed to handle this request; its log says why.")

    async def _caller(self, request: web.Request) -> Caller | None:
        scheme, _, given = request.headers.get("Authorization", "").partition(" ")
        token = given.strip()
        if scheme.lower() != "bearer" or not token:
            return None
        if hmac.compare_digest(token.encode(), self._token):
            return SHARED
        if self._credentials is None:
            return None
        return await self._credentials.caller(token)

    async def _body(self, request: web.Request) -> dict[str, Any]:
        raw = await request.read()
        try:
            body = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise Refused(
                "body", "The body must be JSON (Content-Type: application/json).", 400
            ) from None
        except ValueError:
            # Python refuses integers of more than 4,300 digits.
            raise Refused("body", "The body holds a number too long to read.", 400) from None
        except RecursionError:
            raise Refused(
                "body", "The body nests too deeply to be a tool registration.", 400
            ) from None
        if not isinstance(body, dict):
            raise Refused("body", "The body must be a JSON object.", 400)
        problem = body_problem(body)
        if problem is not None:
            raise Refused(problem[0], problem[1], 400 if problem[0] == "body" else 422)
        return body

    async def _register(self, request: web.Request) -> web.Response:
        caller = request[CALLER]
        registration = parse_registration(await self._body(request), self.tools.handler_names)
        _own_source(caller, registration.source)
        row = await self.tools.register(registration, caller)
        return web.json_response(
            {
                "ok": True,
                "registered": row.name,
                "handlers": row.handlers or sorted(self.tools.handler_names),
                "guild_id": None if row.guild_id is None else str(row.guild_id),
                "disabled": row.disabled,
                "trusted": self.tools.trusted(row),
            }
        )

    async def _unregister(self, request: web.Request) -> web.Response:
        name = check_name((await self._body(request)).get("name"))
        if not await self.tools.unregister(name, request[CALLER]):
            raise Refused("name", f"No tool called {name!r} is registered.", 404)
        return web.json_response({"ok": True, "unregistered": name})

    async def _clear(self, request: web.Request) -> web.Response:
        caller = request[CALLER]
        source = check_source((await self._body(request)).get("source"))
        _own_source(caller, source)
        names = await self.tools.clear(source, caller)
        return web.json_response({"ok": True, "source": source, "cleared": names})

    async def _list(self, request: web.Request) -> web.Response:
        caller = request[CALLER]
        source = request.query.get("source") if caller.shared else caller.source
        rows = await self.tools.store.all()
        shown = [self.describe(row) for row in rows if source is None or row.source == source]
        return web.json_response({"ok": True, "tools": shown})

    def describe(self, row: ExternalToolRow) -> dict[str, Any]:
        """A registration as `GET /api/tools` shows it (no credentials of its callback URL)."""
        return {
            "name": row.name,
            "description": row.description,
            "parameters": row.parameters,
            "callback_url": shown_url(row.callback_url),
            "source": row.source,
            "timeout_seconds": row.timeout_seconds,
            "handlers": row.handlers,
            "guild_id": None if row.guild_id is None else str(row.guild_id),
            "available": row.available,
            "disabled": row.disabled,
            "trusted": self.tools.trusted(row),
            "own_token": row.credential_id is not None,
            "last_error": row.last_error,
            "registered_at": row.registered_at.isoformat(),
        }


def _own_source(caller: Caller, source: str) -> None:
    """A plugin's token acts on its own source only."""
    if not caller.shared and caller.source != source:
        raise Refused(
            "source",
            f"this token belongs to source {caller.source!r}: it can only act on tools of "
            f"source {caller.source!r}, not {source!r}",
            status=403,
        )
