"""A plugin's callback endpoint on 127.0.0.1 whose answers a test scripts."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from tests.fakes.local_server import LocalServer

Answer = Callable[[dict[str, Any]], Awaitable[web.StreamResponse]]


async def _echo(body: dict[str, Any]) -> web.StreamResponse:
    return web.json_response({"output": {"echo": body["arguments"]}, "is_error": False})


class FakePlugin(LocalServer):
    """`POST /invoke` answers with `self.answer(body)`; `GET /invoke` is a health probe,
    answered with `self.probe_answer()`."""

    def __init__(self) -> None:
        super().__init__()
        self.answer: Answer = _echo
        self.calls: list[dict[str, Any]] = []
        self.probes = 0
        # What a health probe gets (a test may make it a redirect).
        self.probe_answer: Callable[[], web.StreamResponse] = lambda: web.Response(status=405)

    @property
    def callback_url(self) -> str:
        """Where the bot should POST calls."""
        return f"http://127.0.0.1:{self._port}/invoke"

    def _app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/invoke", self._invoke)
        app.router.add_get("/invoke", self._probe)
        return app

    async def _invoke(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.calls.append(body)
        return await self.answer(body)

    async def _probe(self, _request: web.Request) -> web.StreamResponse:
        self.probes += 1
        return self.probe_answer()

    async def hang(self) -> None:
        """Wait until the server closes (a plugin that never answers)."""
        await self._closing.wait()
        await asyncio.sleep(0)
