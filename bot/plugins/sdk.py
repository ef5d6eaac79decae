"""The runner of a plugin: serves its tools' callbacks and keeps them registered with the bot.

`plugin = Plugin("dice")`, `@plugin.tool` on typed functions, then `plugin.run()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web
from dotenv import dotenv_values
from pydantic import ValidationError

from bot.plugins.tools import PluginTool, ToolFailure, llm_tool

log = logging.getLogger("otomo.plugin")

DEFAULT_BOT_URL = "http://127.0.0.1:8765"
# Waits between registration attempts while the bot is down grow up to this.
RETRY_MAX_SECONDS = 10.0
REQUEST_TIMEOUT_SECONDS = 5.0


def bot_environment(env_file: Path = Path(".env")) -> dict[str, str]:
    """The bot's settings as the bot reads them: `.env` in this folder, the environment winning."""
    values = {k: v for k, v in dotenv_values(env_file).items() if v is not None}
    values.update(os.environ)
    return values


class PluginError(Exception):
    """The bot refused the plugin (bad token, invalid tool): retrying cannot help."""


class Plugin:
    """Serves callbacks on loopback and keeps the tools registered with the bot."""

    def __init__(
        self,
        source: str,
        tools: Iterable[PluginTool] = (),
        *,
        bot_url: str | None = None,
        token: str | None = None,
        port: int = 0,
        watch_every: float = 15.0,
    ) -> None:
        self.source = source
        self.tools = {t.name: t for t in tools}
        # The bot's own .env names work here too, so one file configures both.
        env = bot_environment()
        port_setting = env.get("TOOLS_API_PORT", "").strip()
        host = env.get("TOOLS_API_HOST", "").strip() or "127.0.0.1"
        host = f"[{host}]" if ":" in host else host
        self.bot_url = (
            bot_url
            or env.get("OTOMO_TOOLS_URL")
            or (f"http://{host}:{port_setting}" if port_setting else DEFAULT_BOT_URL)
        ).rstrip("/")
        self.token = token or env.get("OTOMO_TOOLS_TOKEN") or env.get("TOOLS_API_TOKEN", "")
        self.port = port
        self.watch_every = watch_every
        self.registrations = 0  # how many register calls succeeded (for tests and logs)
        self._http: aiohttp.ClientSession | None = None

    def tool(self, function: Callable[..., Any] | None = None, **options: Any) -> Any:
        """`@plugin.tool` or `@plugin.tool(timeout=5)`: llm_tool, added to this plugin."""

        def add(func: Callable[..., Any]) -> PluginTool:
            made: PluginTool = llm_tool(func, **options)
            self.tools[made.name] = made
            return made

        return add(function) if function is not None else add

    def callback_url(self, name: str) -> str:
        """Where the bot POSTs calls of the tool called name."""
        return f"http://127.0.0.1:{self.port}/tools/{name}"

    # -- callbacks ------------------------------------------------------------------------

    def app(self) -> web.Application:
        """The callback server: POST runs a tool, GET answers health probes."""
        app = web.Application()
        app.router.add_post("/tools/{name}", self._invoke)
        app.router.add_get("/tools/{name}", self._health)
        return app

    async def _health(self, request: web.Request) -> web.Response:
        return web.json_response({"ok": True, "source": self.source, "tools": sorted(self.tools)})

    async def _invoke(self, request: web.Request) -> web.Response:
        found = self.tools.get(request.match_info["name"])
        if found is None:
            return web.json_response({"is_error": True, "error": "no such tool"}, status=404)
        try:
            body = await request.json()
            arguments = body.get("arguments") or {}
            output = await found.invoke(arguments)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()
            )
            error = f"Arguments for {found.name} do not match its schema ({problems})."
            return web.json_response({"output": None, "is_error": True, "error": error})
        except ToolFailure as exc:
            return web.json_response({"output": None, "is_error": True, "error": str(exc)})
        except Exception as exc:  # a broken tool must not take the plugin down
            log.exception("Tool %s failed", found.name)
            error = f"{type(exc).__name__}: {exc}"
            return web.json_response({"output": None, "is_error": True, "error": error})
        return web.json_response({"output": output, "is_error": False})

    # -- registration ---------------------------------------------------------------------

    async def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        assert self._http is not None
        async with self._http.post(
            f"{self.bot_url}{path}",
            json=body,
            headers={"Authorization": f"Bearer {self.token}"},
            timeout=aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_SECONDS),
        ) as response:
            try:
                answer = await response.json(content_type=None)
            except ValueError:
                answer = None  # not the tools API (or a crash page): the status says enough
            details = answer if isinstance(answer, dict) else {}
            if 400 <= response.status < 500:
                reason = details.get("error") or f"HTTP {response.status}."
                raise PluginError(f"Otomo refused {path}: {reason}")
            response.raise_for_status()
            return details

    async def register(self, names: Iterable[str] | None = None) -> None:
        """Register the tools (all by default), retrying for as long as the bot is down."""
        wait, warned = 0.5, False
        for name in list(self.tools) if names is None else list(names):
            item = self.tools[name]
            while True:
                try:
                    body = item.registration(self.callback_url(name), self.source)
                    await self._post("/api/tools/register", body)
                    self.registrations += 1
                    log.info("Registered %s with Otomo at %s", name, self.bot_url)
                    break
                except (aiohttp.ClientError, TimeoutError) as exc:
                    if not warned:
                        log.warning("Otomo is unreachable at %s (%s); retrying", self.bot_url, exc)
                        warned = True
                    await asyncio.sleep(wait)
                    wait = min(wait * 2, RETRY_MAX_SECONDS)

    async def missing(self) -> list[str] | None:
        """Our tools the bot does not offer (lost or marked unavailable); None if unreachable."""
        assert self._http is not None
        try:
            async with self._http.get(
                f"{self.bot_url}/api/tools",
                params={"source": self.source},
                headers={"Authorization": f"Bearer {self.token}"},
                timeout=aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_SECONDS),
            ) as response:
                listed = (await response.json(content_type=None)).get("tools", [])
        except (aiohttp.ClientError, TimeoutError, ValueError):
            return None
        healthy = {t["name"] for t in listed if t.get("available")}
        return [name for name in self.tools if name not in healthy]

    async def clear(self) -> None:
        """Remove every tool of this source from the bot (best effort: it may be down)."""
        try:
            await self._post("/api/tools/clear", {"source": self.source})
            log.info("Cleared source %s from Otomo", self.source)
        except (aiohttp.ClientError, TimeoutError, PluginError) as exc:
            log.warning("Could not clear source %s from Otomo: %s", self.source, exc)

    async def serve(self, stop: asyncio.Event) -> None:
        """Serve callbacks, register, watch for a bot that lost us, clear on stop."""
        runner = web.AppRunner(self.app(), access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", self.port).start()
        self.port = int(runner.addresses[0][1])  # the free port chosen when port was 0
        self._http = aiohttp.ClientSession(trust_env=False)
        try:
            # Registering waits for the bot as long as it takes, so Ctrl-C must interrupt it.
            registering: asyncio.Future[Any] | None = asyncio.ensure_future(self.register())
            while not stop.is_set():
                stopping: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
                waited = {stopping} if registering is None else {stopping, registering}
                await asyncio.wait(waited, timeout=self.watch_every, return_when="FIRST_COMPLETED")
                stopping.cancel()
                if registering is not None:
                    if registering.done():
                        registering.result()  # a PluginError (refused) ends the plugin
                        registering = None
                    continue
                lost = None if stop.is_set() else await self.missing()
                if lost:
                    log.info("Otomo does not offer %s; registering again", ", ".join(lost))
                    registering = asyncio.ensure_future(self.register(lost))
            if registering is not None:
                registering.cancel()
            await self.clear()
        finally:
            await self._http.close()
            await runner.cleanup()

    def run(self) -> None:
        """Serve until SIGINT/SIGTERM; exit with a sentence if the bot refuses the plugin."""
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")

        async def main() -> None:
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.add_signal_handler(sig, stop.set)
            await self.serve(stop)

        try:
            asyncio.run(main())
        except PluginError as exc:
            raise SystemExit(
                f"{exc} Check the plugin's token (OTOMO_TOOLS_TOKEN, made with `python -m bot "
                "tools token create SOURCE`, or the shared TOOLS_API_TOKEN) and the tool "
                "definitions."
            ) from None
