"""A fake Tavily search API (`POST /search`) on 127.0.0.1 for tests.

The real ``tavily.AsyncTavilyClient`` reaches it with ``api_base_url=fake.url`` (the bot passes
``TAVILY_API_BASE``). Each test scripts answers per query with ``fake.answer_for(query, ...)``;
other queries get two generic results. ``fake.fail_status = 401 | 429 | 500`` makes every request
fail the way Tavily does, ``fake.hang = True`` makes every request wait until the server closes,
``fake.hold()`` until ``fake.release()``.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.fakes.local_server import LocalServer

API_KEY = "tvly-test-key"


@dataclass(frozen=True)
class FakeResult:
    """One search result as Tavily returns it."""

    title: str
    url: str
    content: str
    score: float = 0.8

    def body(self) -> dict[str, Any]:
        """The JSON object of this result."""
        return {
            "title": self.title,
            "url": self.url,
            "content": self.content,
            "score": self.score,
            "raw_content": None,
        }


@dataclass
class ScriptedSearch:
    """What the fake answers for one query."""

    results: list[FakeResult]
    answer: str | None = None


_ERRORS = {
    400: "Invalid request.",
    401: "Unauthorized: missing or invalid API key.",
    403: "Forbidden.",
    429: "Your request has been blocked due to excessive requests.",
    432: "This request exceeds your plan's set usage limit.",
    500: "Internal server error.",
}


@dataclass
class FakeTavily(LocalServer):
    """Serves `POST /search`; records every request body and checks the bearer key."""

    api_key: str = API_KEY
    fail_status: int | None = None
    hang: bool = False
    requests: list[dict[str, Any]] = field(default_factory=list)
    _scripts: dict[str, ScriptedSearch] = field(default_factory=dict)

    _open: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        super().__init__()
        self._open.set()

    def hold(self) -> None:
        """Keep every search waiting (recorded, unanswered) until `release()`."""
        self._open.clear()

    def release(self) -> None:
        """Answer the held searches and every later one."""
        self._open.set()

    def answer_for(self, query: str, results: list[FakeResult], answer: str | None = None) -> None:
        """Script the response to a query (matched exactly)."""
        self._scripts[query] = ScriptedSearch(results, answer)

    def _app(self) -> web.Application:
        """Tavily's one endpoint, ``POST /search``; ``url`` is the TAVILY_API_BASE to configure."""
        app = web.Application()
        app.router.add_post("/search", self._search)
        return app

    async def _search(self, request: web.Request) -> web.Response:
        body = json.loads(await request.text())
        self.requests.append(body)
        await self._open.wait()
        if self.hang:
            await self._closing.wait()
        if request.headers.get("Authorization") != f"Bearer {self.api_key}":
            return _error(401)
        if self.fail_status is not None:
            return _error(self.fail_status)
        query = str(body.get("query", ""))
        scripted = self._scripts.get(query) or ScriptedSearch(
            [
                FakeResult(f"{query} - Example", "https://example.com/a", f"About {query}."),
                FakeResult(f"{query} - Wiki", "https://wiki.example.org/b", f"{query} explained."),
            ]
        )
        limit = int(body.get("max_results") or 5)
        payload: dict[str, Any] = {
            "query": query,
            "follow_up_questions": None,
            "answer": scripted.answer if body.get("include_answer") else None,
            "images": [],
            "results": [r.body() for r in scripted.results[:limit]],
            "response_time": 0.42,
            "request_id": f"req-{len(self.requests)}",
        }
        return web.json_response(payload)


def _error(status: int) -> web.Response:
    # Tavily wraps its messages as {"detail": {"error": "..."}}.
    message = _ERRORS.get(status, "Error.")
    return web.json_response({"detail": {"error": message}}, status=status)
