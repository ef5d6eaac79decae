"""The fake's REST front door: every request is recorded, checked, routed and answered.

Authentication, injected faults and the global rate limit apply here, before the route handlers
of the ``rest_*`` modules; tests inject faults and switch rate limits on with the methods below.
"""

from __future__ import annotations

import asyncio
import copy
import json
import mimetypes
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from aiohttp import BodyPartReader, web

from tests.fakes.discord.records import RecordedRequest, UploadedFile
from tests.fakes.discord.rules import (
    ERROR_MESSAGES,
    STATUS_TEXT,
    RateWindow,
    RestReply,
    bucket_hash,
    error_reply,
    ratelimit_headers,
    too_many_requests,
)
from tests.fakes.discord.state import FakeDiscordState
from tests.fakes.discord.world import Json

_API_PATH = re.compile(r"^/api/v(?P<version>\d+)(?P<path>/.*)$")

# Interaction endpoints authenticate by token in the URL and sit outside the global limit.
_TOKEN_ROUTES = ("/interactions/", "/webhooks/")

# A route is (method, template, name of the handler method); the first match wins.
Route = tuple[str, str, str]
CompiledRoute = tuple[str, str, re.Pattern[str], str]
_RouteHandler = Callable[["RestCall"], Any]


def compile_routes(routes: tuple[Route, ...]) -> tuple[CompiledRoute, ...]:
    """Route templates as regexes: ``{name}`` matches one path segment."""
    return tuple(
        (method, template, re.compile(re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", template)), handler)
        for method, template, handler in routes
    )


@dataclass
class RestCall:
    """A routed REST request."""

    request: web.Request
    params: dict[str, str]
    body: Any
    files: list[UploadedFile]
    record: RecordedRequest

    @property
    def json(self) -> Json:
        """The JSON object body, or {} when there is none."""
        return self.body if isinstance(self.body, dict) else {}


@dataclass
class Fault:
    """An injected failure: the next ``times`` matching requests get ``status``."""

    method: str
    pattern: re.Pattern[str]
    status: int
    times: int | None
    retry_after: float
    global_: bool
    code: int
    message: str
    # Discord carried the request out and still answered the error (a proxy's 5xx after the
    # backend committed), so the client sees a failure for something that happened.
    applied: bool = False
    served: int = 0

    def matches(self, method: str, path: str) -> bool:
        """True if this fault applies to the request and is not used up."""
        if self.times is not None and self.served >= self.times:
            return False
        return self.method in ("*", method) and self.pattern.fullmatch(path) is not None


@dataclass
class Hold:
    """The next message posted (to ``channel_id``, or anywhere) is stored, as Discord stores an
    accepted message, but its answer waits until ``release()``: the moment a client killed
    after posting and before hearing back would leave behind."""

    channel_id: int | None
    accepted: asyncio.Event = field(default_factory=asyncio.Event)
    released: asyncio.Event = field(default_factory=asyncio.Event)
    message: Json | None = None

    def matches(self, channel_id: int) -> bool:
        """True if a message to channel_id is the one to hold."""
        return self.channel_id in (None, channel_id)

    async def keep(self, message: Json) -> None:
        """Note the accepted message, then wait until released."""
        self.message = copy.deepcopy(message)
        self.accepted.set()
        await self.released.wait()

    async def wait_accepted(self, timeout: float = 30.0) -> Json:  # noqa: ASYNC109
        """Wait until a message was accepted and is being held; return it."""
        await asyncio.wait_for(self.accepted.wait(), timeout)
        assert self.message is not None
        return self.message

    def release(self) -> None:
        """Let the answer go (to a client that may no longer be there)."""
        self.released.set()


@dataclass
class Pause:
    """Requests that ``matches`` picks wait, neither carried out nor answered, until
    ``release()``: a slow moment of Discord's (or a rate limit's wait) at a chosen point."""

    matches: Callable[[RecordedRequest], bool]
    reached: asyncio.Event = field(default_factory=asyncio.Event)
    released: asyncio.Event = field(default_factory=asyncio.Event)
    caught: list[RecordedRequest] = field(default_factory=list)

    async def wait_reached(self, timeout: float = 30.0) -> RecordedRequest:  # noqa: ASYNC109
        """Wait until a matching request is being held; return the first one."""
        await asyncio.wait_for(self.reached.wait(), timeout)
        return self.caught[0]

    def release(self) -> None:
        """Let every held request (and any later match) through."""
        self.released.set()


class RestServer(FakeDiscordState):
    """Records, checks and routes REST requests to the handler methods named in ``_routes``."""

    _routes: ClassVar[tuple[CompiledRoute, ...]] = ()

    # -- faults and rate limits ------------------------------------------------------------

    def inject(
        self,
        method: str,
        path_regex: str | None = None,
        *,
        status: int,
        times: int | None = 1,
        retry_after: float = 1.0,
        global_: bool = False,
        code: int | None = None,
        message: str | None = None,
        channel_id: int | None = None,
        applied: bool = False,
    ) -> Fault:
        """Answer the next ``times`` matching requests (None = all) with a Discord-shaped error."""
        if path_regex is None:
            if channel_id is None:
                raise ValueError("inject() needs path_regex or channel_id")
            path_regex = rf"/channels/{channel_id}(?:/.*)?"
        if code is None:
            code = {403: 50001}.get(status, 0)
        if message is None:
            message = ERROR_MESSAGES.get(code) or f"{status}: {STATUS_TEXT.get(status, 'Error')}"
        fault = Fault(
            method.upper(),
            re.compile(path_regex),
            status,
            times,
            retry_after,
            global_,
            code,
            message,
            applied,
        )
        self.faults.append(fault)
        return fault

    def hold_after_accepting(self, channel_id: int | None = None) -> Hold:
        """Hold the answer to the next message posted (to channel_id): see :class:`Hold`."""
        hold = Hold(channel_id)
        self.holds.append(hold)
        return hold

    def pause_requests(self, matches: Callable[[RecordedRequest], bool]) -> Pause:
        """Hold the requests ``matches`` picks until released: see :class:`Pause`."""
        pause = Pause(matches)
        self.pauses.append(pause)
        return pause

    def clear_faults(self) -> None:
        """Remove every injected fault."""
        self.faults.clear()

    def rate_limit_channel_messages(self, per: int | None = 5, seconds: float = 5.0) -> None:
        """Emulate Discord's per-channel message bucket (5 per 5 s); ``per=None`` turns it off."""
        self._channel_limit = None if per is None else (per, seconds)
        self._channel_windows.clear()

    def rate_limit_global(self, per: int | None = 50, seconds: float = 1.0) -> None:
        """Emulate the global limit (50 requests/s per bot); ``per=None`` turns it off."""
        self._global_window = None if per is None else RateWindow(per, seconds)

    # -- answering -------------------------------------------------------------------------

    async def _read_body(self, request: web.Request) -> tuple[Any, list[UploadedFile]]:
        """JSON body, or multipart ``payload_json`` plus ``files[n]`` parts."""
        if request.content_type.startswith("multipart/"):
            body: Any = None
            files: list[UploadedFile] = []
            reader = await request.multipart()
            async for part in reader:
                if not isinstance(part, BodyPartReader):
                    continue
                if part.name == "payload_json":
                    body = json.loads(await part.text())
                elif part.filename is not None:
                    data = bytes(await part.read())
                    files.append(
                        UploadedFile(
                            part.name or "", part.filename, part.headers.get("Content-Type"), data
                        )
                    )
            return body, files
        raw = await request.read()
        if not raw:
            return None, []
        try:
            return json.loads(raw), []
        except ValueError:
            return raw.decode(errors="replace"), []

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        """Record every request, apply faults and limits, route it, record the answer."""
        if request.path.startswith("/cdn/attachments/"):
            return self._serve_attachment(request)
        match = _API_PATH.match(request.path)
        path = match["path"] if match else request.path
        body, files = await self._read_body(request)
        interesting = ("User-Agent", "Content-Type", "Authorization", "X-Audit-Log-Reason")
        record = RecordedRequest(
            method=request.method,
            path=path,
            query=dict(request.query),
            json=body,
            files=files,
            headers={k: request.headers[k] for k in interesting if k in request.headers},
            at=time.monotonic(),
        )
        self.requests.append(record)
        for pause in self.pauses:
            if not pause.released.is_set() and pause.matches(record):
                pause.caught.append(record)
                pause.reached.set()
                self._notify()
                await pause.released.wait()
        reply = await self._answer(request, record, path, body, files, is_api=match is not None)
        record.status = reply.status
        record.response = reply.data
        self._notify()
        if reply.data is None:
            return web.Response(status=reply.status, headers=reply.headers)
        # Exactly "application/json" (no charset): discord.py parses JSON only on that header.
        return web.Response(
            status=reply.status,
            body=json.dumps(reply.data, ensure_ascii=False).encode(),
            content_type="application/json",
            headers=reply.headers,
        )

    async def _answer(
        self,
        request: web.Request,
        record: RecordedRequest,
        path: str,
        body: Any,
        files: list[UploadedFile],
        *,
        is_api: bool,
    ) -> RestReply:
        """Auth, injected faults, the global limit, then the route handler."""
        if not is_api:
            return error_reply(404)
        handler_name, params, method_matched = None, {}, False
        for method, template, pattern, name in self._routes:
            found = pattern.fullmatch(path)
            if found is not None and method == request.method:
                record.route, handler_name, params = template, name, found.groupdict()
                break
            method_matched = method_matched or found is not None
        token_route = path.startswith(_TOKEN_ROUTES)
        if not token_route and not self._token_ok(request.headers.get("Authorization")):
            return error_reply(401)
        applied: Fault | None = None
        for fault in self.faults:
            if fault.matches(request.method, path):
                fault.served += 1
                if not fault.applied:
                    return self._fault_reply(fault, request.method, path)
                applied = fault
                break
        if self._global_window is not None and not token_route:
            allowed, _, reset_after = self._global_window.take(time.monotonic())
            if not allowed:
                self.rate_limit_hits["global"] += 1
                return too_many_requests(reset_after, global_=True, scope="global", headers={})
        if handler_name is None:
            return error_reply(405) if method_matched else error_reply(404)
        handler: _RouteHandler = getattr(self, handler_name)
        reply: RestReply = await handler(RestCall(request, params, body, files, record))
        if applied is not None:
            return self._fault_reply(applied, request.method, path)
        return reply

    def _fault_reply(self, fault: Fault, method: str, path: str) -> RestReply:
        """The Discord-shaped answer of an injected fault."""
        if fault.status == 429:
            self.rate_limit_hits["injected"] += 1
            bucket = bucket_hash(f"fault {method} {fault.pattern.pattern}")
            headers = ratelimit_headers(1, 0, fault.retry_after, bucket)
            scope = "global" if fault.global_ else "user"
            return too_many_requests(
                fault.retry_after, global_=fault.global_, scope=scope, headers=headers
            )
        return error_reply(fault.status, fault.code, fault.message)

    def _serve_attachment(self, request: web.Request) -> web.Response:
        """The fake CDN, so ``Attachment.read()`` works offline."""
        parts = request.path.split("/")
        self.cdn_downloads.append(request.path)
        try:
            data = self._attachment_data[int(parts[4])]
        except (IndexError, ValueError, KeyError):
            return web.Response(status=404, text="not found")
        content_type = mimetypes.guess_type(parts[-1])[0] or "application/octet-stream"
        return web.Response(body=data, content_type=content_type)
