"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1 for tests.

The real litellm reaches it with ``model="openai/<name>"``, ``api_base=llm.api_base`` and any
``api_key``. Each test scripts the model's turns with the reply builders below, queued in order
(``llm.queue(...)``) or computed from the request (``llm.rule = lambda request: ...``).

``ScriptedLLM(prefix_cache=True)`` reports cached prompt tokens as OpenAI does
(``usage.prompt_tokens_details.cached_tokens``): the longest start a request shares with an
earlier one, as an ideal prefix cache would keep it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from aiohttp import web
from multidict import CIMultiDict

from tests.fakes.local_server import LocalServer

# Fixed so two runs of a test see byte-identical responses.
CREATED = 1_700_000_000
# Text is streamed in small pieces (so a consumer must really reassemble it) but in at most this
# many chunks, so a long reply does not cost litellm thousands of per-chunk round trips.
TEXT_CHUNKS_MAX = 40
TEXT_CHUNK_CHARS = 3
# Real providers split a call's JSON arguments arbitrarily; at least this many fragments.
ARGUMENT_FRAGMENTS_MIN = 3
# Roughly one token per four characters: deterministic and close enough to real counts.
CHARS_PER_TOKEN = 4

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    403: "permission_error",
    404: "invalid_request_error",
    429: "requests",
}


@dataclass(frozen=True)
class ToolCall:
    """One function call the scripted model makes."""

    name: str
    arguments: str  # sent verbatim, so a test can script malformed JSON
    id: str | None = None


@dataclass(frozen=True)
class ErrorReply:
    """An HTTP error shaped like OpenAI's ``{"error": {...}}`` body."""

    status: int
    message: str
    type: str
    code: str | None = None
    param: str | None = None
    headers: tuple[tuple[str, str], ...] = ()

    def body(self) -> dict[str, Any]:
        """Return the JSON body OpenAI sends with this error."""
        return {
            "error": {
                "message": self.message,
                "type": self.type,
                "param": self.param,
                "code": self.code,
            }
        }


@dataclass(frozen=True)
class Reply:
    """What the scripted model answers to one request."""

    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    error: ErrorReply | None = None
    delay: float = 0.0  # seconds before the first byte (headers included)
    chunk_delay: float = 0.0  # seconds between streamed chunks
    hang: bool = False  # never finish; the connection is dropped when the server closes
    hang_after_chunks: int = 0  # with hang and streaming: chunks sent before going silent
    finish_reason: str | None = None  # None: "tool_calls" if there are calls, else "stop"
    # Streamed: write content again and again, as a model caught in a loop does, until the
    # request's max_tokens is reached (finish_reason "length") or, without one, forever.
    endless: bool = False
    # Streamed: after the first chunk, only SSE keep-alive comments every chunk_delay seconds
    # (a read timeout never fires) until the server closes.
    keep_alive: bool = False

    @property
    def resolved_finish_reason(self) -> str:
        """Return the finish_reason the response will carry."""
        if self.finish_reason is not None:
            return self.finish_reason
        return "tool_calls" if self.tool_calls else "stop"


# What OpenAI answers for a wrong key; also sent when ScriptedLLM(api_key=...) does not match.
WRONG_KEY = ErrorReply(
    401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key"
)


def text(
    content: str, *, delay: float = 0.0, chunk_delay: float = 0.0, finish_reason: str | None = None
) -> Reply:
    """Answer with plain assistant text."""
    return Reply(content=content, delay=delay, chunk_delay=chunk_delay, finish_reason=finish_reason)


def tool_call(
    name: str,
    arguments: dict[str, Any] | str,
    id: str | None = None,
    *,
    text: str | None = None,
    delay: float = 0.0,
    chunk_delay: float = 0.0,
) -> Reply:
    """Answer with one function call; a ``str`` for arguments is sent verbatim (may be bad JSON)."""
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    call = ToolCall(name=name, arguments=arguments, id=id)
    return Reply(content=text, tool_calls=(call,), delay=delay, chunk_delay=chunk_delay)


def tool_calls(
    calls: Sequence[Reply | ToolCall],
    *,
    text: str | None = None,
    delay: float = 0.0,
    chunk_delay: float = 0.0,
) -> Reply:
    """Answer with several function calls in one turn, optionally after some text."""
    merged: list[ToolCall] = []
    for item in calls:
        merged.extend(item.tool_calls if isinstance(item, Reply) else (item,))
    return Reply(content=text, tool_calls=tuple(merged), delay=delay, chunk_delay=chunk_delay)


def error(
    status: int,
    message: str,
    *,
    type: str | None = None,
    code: str | None = None,
    param: str | None = None,
    retry_after: float | None = None,
    headers: dict[str, str] | None = None,
) -> Reply:
    """Answer with an HTTP error in OpenAI's shape."""
    all_headers = dict(headers or {})
    if retry_after is not None:
        all_headers["retry-after"] = f"{retry_after:g}"
    error_type = type or _ERROR_TYPES.get(status, "server_error" if status >= 500 else "error")
    spec = ErrorReply(status, message, error_type, code, param, tuple(all_headers.items()))
    return Reply(error=spec)


def auth_error(message: str = WRONG_KEY.message) -> Reply:
    """Answer 401 as OpenAI does for a wrong key."""
    return Reply(error=replace(WRONG_KEY, message=message))


def model_not_found(model: str) -> Reply:
    """Answer 404 as OpenAI does for a model name it does not know."""
    return error(
        404,
        f"The model `{model}` does not exist or you do not have access to it.",
        code="model_not_found",
    )


def rate_limited(
    retry_after: float = 1.0, message: str = "Rate limit reached for requests."
) -> Reply:
    """Answer 429 with a ``retry-after`` header."""
    return error(429, message, type="requests", code="rate_limit_exceeded", retry_after=retry_after)


def context_length_exceeded(
    message: str = "This model's maximum context length is 8192 tokens. "
    "However, your messages resulted in 9000 tokens.",
) -> Reply:
    """Answer 400 ``context_length_exceeded`` as OpenAI does for an over-long conversation."""
    return error(
        400, message, type="invalid_request_error", code="context_length_exceeded", param="messages"
    )


def server_error(message: str = "The server had an error while processing your request.") -> Reply:
    """Answer 500 as OpenAI does for an internal failure."""
    return error(500, message, type="server_error")


def delay(seconds: float, reply: Reply) -> Reply:
    """Return ``reply`` answered only after ``seconds`` (before the first byte)."""
    return replace(reply, delay=seconds)


def endless(content: str, *, chunk_delay: float = 0.0) -> Reply:
    """A model that repeats content without end (see ``Reply.endless``)."""
    return Reply(content=content, chunk_delay=chunk_delay, endless=True)


def keep_alive(every: float = 0.2) -> Reply:
    """A model that keeps the connection busy with keep-alive comments and never answers."""
    return Reply(keep_alive=True, chunk_delay=every)


def hang(reply: Reply | None = None, *, after_chunks: int = 0) -> Reply:
    """Never finish answering; streamed, first send ``after_chunks`` chunks of ``reply``."""
    return replace(reply or Reply(), hang=True, hang_after_chunks=after_chunks)


@dataclass
class ChatRequest:
    """One request the server received: the parsed JSON body plus transport details."""

    number: int  # 1-based, as in the "request #N" of error messages
    path: str
    headers: Mapping[str, str]  # case-insensitive
    body: dict[str, Any]
    # The prompt tokens reported as read from the cache (with prefix_cache).
    cached_tokens: int = 0

    @property
    def messages(self) -> list[dict[str, Any]]:
        """Return the messages sent."""
        return list(self.body.get("messages") or [])

    @property
    def system(self) -> str:
        """Return the text of every system message, in order (a prompt's stable part and its
        context are two messages)."""
        texts = []
        for message in self.messages_with_role("system"):
            content = message.get("content") or ""
            if isinstance(content, list):  # text parts, e.g. with cache markers
                content = "".join(str(part.get("text", "")) for part in content)
            texts.append(str(content))
        return "\n\n".join(texts)

    @property
    def tools(self) -> list[dict[str, Any]]:
        """Return the tool definitions sent (empty when none)."""
        return list(self.body.get("tools") or [])

    @property
    def tool_names(self) -> list[str]:
        """Return the names of the functions offered to the model."""
        return [tool["function"]["name"] for tool in self.tools if "function" in tool]

    @property
    def tool_choice(self) -> Any:
        """Return tool_choice as sent, or None."""
        return self.body.get("tool_choice")

    @property
    def stream(self) -> bool:
        """Return whether a streamed answer was asked for."""
        return bool(self.body.get("stream"))

    @property
    def max_tokens(self) -> int | None:
        """Return the cap on the answer's tokens the request set, or None."""
        value = self.body.get("max_tokens") or self.body.get("max_completion_tokens")
        return int(value) if value else None

    @property
    def model(self) -> str | None:
        """Return the model name as the server saw it (litellm strips ``openai/``)."""
        return self.body.get("model")

    @property
    def last_message(self) -> dict[str, Any]:
        """Return the final message of the conversation (a user, assistant or tool message; a
        system message after it, such as the prompt's context, is not the conversation's)."""
        said = [m for m in self.messages if m.get("role") != "system"]
        return said[-1] if said else (self.messages[-1] if self.messages else {})

    def messages_with_role(self, role: str) -> list[dict[str, Any]]:
        """Return the messages of one role, e.g. ``"tool"`` for tool results."""
        return [m for m in self.messages if m.get("role") == role]


Rule = Callable[[ChatRequest], Reply | None]


class ScriptedLLM(LocalServer):
    """An OpenAI-compatible server whose answers each test scripts."""

    # Hanging handlers leave on their own when _closing is set; the timeout is a backstop.
    shutdown_timeout = 2.0

    def __init__(
        self,
        *,
        models: Sequence[str] = ("test-model",),
        api_key: str | None = None,
        strict: bool = True,
        prefix_cache: bool = False,
    ) -> None:
        """Configure; ``api_key`` set means other keys get 401; ``strict`` fails unscripted runs;
        ``prefix_cache`` reports cached prompt tokens."""
        super().__init__()
        self.models = list(models)
        self.api_key = api_key
        self.strict = strict
        self.prefix_cache = prefix_cache
        self._prompts: list[str] = []
        self.rule: Rule | None = None
        self.requests: list[ChatRequest] = []
        self.failures: list[str] = []  # unscripted requests and rule errors, for strict mode
        self._queue: deque[Reply] = deque()
        self._arrived = asyncio.Condition()

    # -- lifecycle -------------------------------------------------------------------------

    def _app(self) -> web.Application:
        """Chat completions and models, with or without the ``/v1`` prefix."""
        app = web.Application()
        for prefix in ("/v1", ""):
            app.router.add_post(f"{prefix}/chat/completions", self._chat)
            app.router.add_get(f"{prefix}/models", self._models)
        return app

    async def __aexit__(self, exc_type: type[BaseException] | None, *_: object) -> None:
        await self.close()
        # Product code may swallow the 500 of an unscripted request; fail the test here instead,
        # unless it is already failing for another reason.
        if self.strict and exc_type is None and self.failures:
            raise AssertionError("ScriptedLLM: " + "; ".join(self.failures))

    @property
    def api_base(self) -> str:
        """Return the ``api_base`` to give litellm (``<url>/v1``)."""
        return f"{self.url}/v1"

    def completion_kwargs(self, model: str | None = None) -> dict[str, Any]:
        """Return the ``model``/``api_base``/``api_key`` arguments for ``litellm.acompletion``."""
        return {
            "model": f"openai/{model or self.models[0]}",
            "api_base": self.api_base,
            "api_key": self.api_key or "test",
        }

    # -- scripting and inspection ------------------------------------------------------------

    def queue(self, *replies: Reply) -> None:
        """Append replies to answer the next requests in order."""
        self._queue.extend(replies)

    @property
    def pending(self) -> int:
        """Return how many queued replies are still unused."""
        return len(self._queue)

    @property
    def request_count(self) -> int:
        """Return how many chat requests arrived."""
        return len(self.requests)

    @property
    def last_request(self) -> ChatRequest:
        """Return the latest chat request (fails when there is none)."""
        if not self.requests:
            raise AssertionError("ScriptedLLM: no request has arrived")
        return self.requests[-1]

    # A deadline argument reads better in tests than wrapping every call in asyncio.timeout.
    async def wait_for_requests(self, n: int, timeout: float = 5.0) -> list[ChatRequest]:  # noqa: ASYNC109
        """Wait until at least ``n`` chat requests arrived and return the first ``n``."""
        try:
            async with asyncio.timeout(timeout), self._arrived:
                await self._arrived.wait_for(lambda: len(self.requests) >= n)
        except TimeoutError:
            raise AssertionError(
                f"ScriptedLLM: waited {timeout}s for {n} requests, got {len(self.requests)}"
            ) from None
        return self.requests[:n]

    # -- HTTP handlers -----------------------------------------------------------------------

    async def _models(self, _request: web.Request) -> web.Response:
        data = [
            {"id": m, "object": "model", "created": CREATED, "owned_by": "scripted"}
            for m in self.models
        ]
        return web.json_response({"object": "list", "data": data})

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        try:
            body = json.loads(await request.read())
        except ValueError:
            return _json_error(
                ErrorReply(400, "ScriptedLLM: body is not JSON", "invalid_request_error")
            )
        headers = CIMultiDict(request.headers)
        chat = ChatRequest(len(self.requests) + 1, request.path, headers, body)
        if self.prefix_cache:
            prompt = _prompt_text(chat)
            kept = max((_shared_start(prompt, earlier) for earlier in self._prompts), default=0)
            chat.cached_tokens = kept // CHARS_PER_TOKEN
            self._prompts.append(prompt)
        async with self._arrived:
            self.requests.append(chat)
            self._arrived.notify_all()

        if (
            self.api_key is not None
            and chat.headers.get("Authorization") != f"Bearer {self.api_key}"
        ):
            return _json_error(WRONG_KEY)
        reply = self._reply_for(chat)
        if isinstance(reply, web.Response):
            return reply
        reply = _within_max_tokens(chat, reply)

        if not await self._pause(reply.delay):
            return _dropped(request)
        if reply.error is not None:
            return _json_error(reply.error)
        if chat.stream:
            return await self._stream(request, chat, reply)
        if reply.hang:
            await self._closing.wait()
            return _dropped(request)
        return web.json_response(_completion(chat, reply))

    def _reply_for(self, chat: ChatRequest) -> Reply | web.Response:
        if self._queue:
            return self._queue.popleft()
        if self.rule is not None:
            try:
                reply = self.rule(chat)
            except Exception as exc:  # the test's own rule is broken: say so loudly
                return self._fail(f"rule raised {exc!r} for request #{chat.number}")
            if reply is not None:
                return reply
        return self._fail(f"no scripted response for request #{chat.number}")

    def _fail(self, what: str) -> web.Response:
        self.failures.append(what)
        return _json_error(ErrorReply(500, f"ScriptedLLM: {what}", "server_error", "unscripted"))

    async def _stream(
        self, request: web.Request, chat: ChatRequest, reply: Reply
    ) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        await response.prepare(request)
        include_usage = bool((chat.body.get("stream_options") or {}).get("include_usage"))
        chunks = (
            _endless_chunks(chat, reply) if reply.endless else _chunks(chat, reply, include_usage)
        )
        for sent, chunk in enumerate(chunks):
            if reply.hang and sent >= reply.hang_after_chunks:
                await self._closing.wait()
                return _dropped(request, response)
            if sent and not await self._pause(reply.chunk_delay):
                return _dropped(request, response)
            await response.write(_sse(chunk))
            while reply.keep_alive:
                if not await self._pause(reply.chunk_delay):
                    return _dropped(request, response)
                try:
                    await response.write(b": keep-alive\n\n")
                except ConnectionResetError:  # the client gave up waiting
                    return response
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response

    async def _pause(self, seconds: float) -> bool:
        """Sleep, but wake early when the server closes; return False if it did."""
        if seconds <= 0:
            return not self._closing.is_set()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._closing.wait(), seconds)
        return not self._closing.is_set()


# -- wire format -----------------------------------------------------------------------------


def _json_error(spec: ErrorReply) -> web.Response:
    return web.json_response(spec.body(), status=spec.status, headers=dict(spec.headers))


def _dropped(
    request: web.Request, response: web.StreamResponse | None = None
) -> web.StreamResponse:
    """Cut the connection without a complete answer, as a dying upstream does."""
    if request.transport is not None:
        request.transport.close()
    return response or web.Response(status=503)


def _sse(payload: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n".encode()


def _tokens(chars: int) -> int:
    return max(1, math.ceil(chars / CHARS_PER_TOKEN))


def _prompt_text(chat: ChatRequest) -> str:
    """The text the prompt tokens are counted on: every message's content, in order."""
    return "".join(json.dumps(m.get("content") or "", ensure_ascii=False) for m in chat.messages)


def _shared_start(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _usage(chat: ChatRequest, reply: Reply) -> dict[str, Any]:
    completion_chars = len(reply.content or "") + sum(
        len(c.name) + len(c.arguments) for c in reply.tool_calls
    )
    prompt, completion = _tokens(len(_prompt_text(chat))), _tokens(completion_chars)
    usage: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if chat.cached_tokens:
        usage["prompt_tokens_details"] = {"cached_tokens": min(chat.cached_tokens, prompt)}
    return usage


def _call_ids(chat: ChatRequest, reply: Reply) -> list[str]:
    return [c.id or f"call_{chat.number}_{i}" for i, c in enumerate(reply.tool_calls)]


def _completion(chat: ChatRequest, reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content, "refusal": None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": c.name, "arguments": c.arguments},
            }
            for call_id, c in zip(_call_ids(chat, reply), reply.tool_calls, strict=True)
        ]
    return {
        "id": f"chatcmpl-scripted-{chat.number}",
        "object": "chat.completion",
        "created": CREATED,
        "model": chat.model,
        "system_fingerprint": None,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": reply.resolved_finish_reason,
            }
        ],
        "usage": _usage(chat, reply),
    }


def _within_max_tokens(chat: ChatRequest, reply: Reply) -> Reply:
    """The reply a real server sends under the request's max_tokens: text cut at the cap,
    finish_reason "length", no tool calls (the model never got to them)."""
    cap = chat.max_tokens
    if cap is None or reply.endless or len(reply.content or "") <= cap * CHARS_PER_TOKEN:
        return reply
    assert reply.content is not None
    return replace(
        reply, content=reply.content[: cap * CHARS_PER_TOKEN], tool_calls=(), finish_reason="length"
    )


def _endless_chunks(chat: ChatRequest, reply: Reply) -> Iterator[dict[str, Any]]:
    """The chunks of a looping model: its content over and over, up to max_tokens if set.

    Pieces of TEXT_CHUNK_CHARS cut across the repetitions, so consecutive chunks differ as a
    real model's do (litellm fails a stream of identical chunks on its own).
    """
    assert reply.content
    cap = None if chat.max_tokens is None else chat.max_tokens * CHARS_PER_TOKEN
    base = {
        "id": f"chatcmpl-scripted-{chat.number}",
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": chat.model,
    }
    yield {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}
    written = 0
    while cap is None or written < cap:
        size = TEXT_CHUNK_CHARS if cap is None else min(TEXT_CHUNK_CHARS, cap - written)
        piece = "".join(reply.content[(written + n) % len(reply.content)] for n in range(size))
        written += size
        yield {**base, "choices": [{"index": 0, "delta": {"content": piece}}]}
    yield {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]}


def _split(s: str, pieces: int) -> list[str]:
    """Split ``s`` into ``pieces`` nearly equal consecutive parts (fewer if ``s`` is short)."""
    size = max(1, math.ceil(len(s) / pieces))
    return [s[i : i + size] for i in range(0, len(s), size)]


def _chunks(chat: ChatRequest, reply: Reply, include_usage: bool) -> Iterator[dict[str, Any]]:
    """Yield chat.completion.chunk objects in the order OpenAI streams them."""
    base = {
        "id": f"chatcmpl-scripted-{chat.number}",
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": chat.model,
        "system_fingerprint": None,
    }
    # OpenAI sends "usage": null on every chunk once usage was requested.
    extra: dict[str, Any] = {"usage": None} if include_usage else {}

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        return {**base, "choices": [choice], **extra}

    yield chunk({"role": "assistant", "content": "", "refusal": None})
    if reply.content:
        pieces = min(TEXT_CHUNKS_MAX, max(3, math.ceil(len(reply.content) / TEXT_CHUNK_CHARS)))
        for piece in _split(reply.content, pieces):
            yield chunk({"content": piece})
    for index, (call_id, call) in enumerate(
        zip(_call_ids(chat, reply), reply.tool_calls, strict=True)
    ):
        # The first chunk of a call names it; the arguments follow in arbitrary fragments.
        head = {
            "index": index,
            "id": call_id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        yield chunk({"tool_calls": [head]})
        for fragment in _split(call.arguments, ARGUMENT_FRAGMENTS_MIN):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": fragment}}]})
    yield chunk({}, reply.resolved_finish_reason)
    if include_usage:
        yield {**base, "choices": [], "usage": _usage(chat, reply)}


__all__ = [
    "ChatRequest",
    "ErrorReply",
    "Reply",
    "Rule",
    "ScriptedLLM",
    "ToolCall",
    "auth_error",
    "context_length_exceeded",
    "delay",
    "endless",
    "error",
    "hang",
    "keep_alive",
    "rate_limited",
    "server_error",
    "text",
    "tool_call",
    "tool_calls",
]
