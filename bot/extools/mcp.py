"""MCP servers as tool providers: connect, list tools, offer them, reconnect when they restart."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.types import REQUEST_TIMEOUT, CallToolResult, TextContent

from bot.agent.tools import MAX_TIMEOUT_SECONDS, Tool, ToolContext, ToolError, ToolRegistry
from bot.extools.answers import (
    DEFAULT_MAX_ANSWER_BYTES,
    DEFAULT_MAX_RESULT_CHARS,
    clip_output,
    too_large,
)
from bot.extools.catalog import TIMEOUT_GRACE_SECONDS, ProviderGrants, ToolStatus
from bot.extools.looks import look_of
from bot.extools.mcp_config import MCPServerConfig, exposed_name
from bot.extools.registration import definition_hash, provider_identity
from bot.extools.schemas import ArgumentsCheck, arguments_check, schema_problem
from bot.runtime.background import cancel_within

log = logging.getLogger(__name__)

# The SDK imports jsonschema when it validates its first tool result: about 110 ms of CPU inside
# a tool call on the event loop. Importing it with this module moves that cost to start-up.
SDK_LAZY_IMPORTS = ("jsonschema.exceptions", "jsonschema.validators", "referencing.exceptions")
for _module in SDK_LAZY_IMPORTS:
    importlib.import_module(_module)

# Reconnection waits double from the first to the last.
RETRY_FIRST_SECONDS = 1.0
RETRY_MAX_SECONDS = 60.0
# How often a connected server's tools are listed again, to notice that it went away.
PING_EVERY_SECONDS = 10.0
# How long stop() keeps cancelling the connections before it leaves them behind.
STOP_SECONDS = 10
PING_TIMEOUT_SECONDS = 5.0


def _innermost(exc: BaseException) -> BaseException:
    """The first leaf of an exception group (anyio wraps transport failures in groups)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _reason(exc: BaseException) -> str:
    leaf = _innermost(exc)
    text = str(leaf) or type(leaf).__name__
    return f"{type(leaf).__name__}: {text}" if str(leaf) else text


def result_bytes(result: CallToolResult) -> int:
    """About how many bytes the result holds (its text, structured content and binary data)."""
    size = 0
    if result.structured_content is not None:
        size += len(json.dumps(result.structured_content, ensure_ascii=False, default=str))
    for block in result.content:
        for field in ("text", "data", "blob"):
            value = getattr(block, field, None)
            if isinstance(value, str):
                size += len(value)
        resource = getattr(block, "resource", None)
        for field in ("text", "blob"):
            value = getattr(resource, field, None)
            if isinstance(value, str):
                size += len(value)
    return size


def _listing(tools: list[Any]) -> frozenset[str]:
    """What a server's tool list says, hashed per tool: a change of any definition shows."""
    return frozenset(
        definition_hash(t.name, t.description or "", dict(t.input_schema or {})) for t in tools
    )


def result_output(result: CallToolResult) -> Any:
    """Structured content when the server gives it, else the text of its content blocks."""
    if result.structured_content is not None:
        return result.structured_content
    texts = [block.text for block in result.content if isinstance(block, TextContent)]
    if len(texts) == 1:
        return texts[0]
    if texts:
        return texts
    return [block.model_dump(mode="json", exclude_none=True) for block in result.content]


class _Connection:
    """One server's live client, its tools, and a flag set when a call saw it break."""

    def __init__(self, config: MCPServerConfig) -> None:
        self.config = config
        self.client: Client | None = None
        self.tools: dict[str, str] = {}  # exposed name → the server's own name
        self.listing: frozenset[str] = frozenset()  # as _listing() saw the last list
        self.broken = asyncio.Event()
        self.last_error: str | None = None


class MCPServers:
    """Connects to every configured server in the background; the bot never waits on them."""

    def __init__(
        self,
        servers: list[MCPServerConfig],
        registry: ToolRegistry,
        *,
        handler_names: frozenset[str],
        trusted_sources: frozenset[str],
        timeout: float,
        ping_every: float = PING_EVERY_SECONDS,
        max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
        max_result_chars: int = DEFAULT_MAX_RESULT_CHARS,
        grants: ProviderGrants | None = None,
    ) -> None:
        self._connections = {s.name: _Connection(s) for s in servers}
        self._ping_every = ping_every
        self._registry = registry
        self._handler_names = handler_names
        self._trusted = trusted_sources
        self._timeout = timeout
        self._max_answer_bytes = max_answer_bytes
        self._max_result_chars = max_result_chars
        self._grants = grants
        self._dropping: set[asyncio.Task[int]] = set()
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = False
        self.connected = asyncio.Event()  # set whenever a server's tools are installed

    def start(self) -> None:
        """Start one supervisor per server."""
        loop = asyncio.get_running_loop()
        for connection in self._connections.values():
            self._tasks.append(loop.create_task(self._supervise(connection)))

    async def stop(self) -> None:
        """Disconnect every server (stdio servers are stopped)."""
        self._stopping = True
        stuck = await cancel_within(self._tasks, STOP_SECONDS)
        if stuck:
            log.error(
                "%d MCP connection(s) did not close within %d s; left behind at shutdown",
                len(stuck),
                STOP_SECONDS,
            )
        self._tasks.clear()
        await asyncio.gather(*self._dropping, return_exceptions=True)

    def statuses(self) -> list[ToolStatus]:
        """Every MCP tool (and every server without tools) as admins see it."""
        found: list[ToolStatus] = []
        for connection in self._connections.values():
            config = connection.config
            source = f"mcp:{config.name}"
            if not connection.tools:
                found.append(
                    ToolStatus(
                        name=f"mcp.{config.name}.*",
                        source=source,
                        kind="mcp",
                        handlers=config.handlers,
                        guild_id=None,
                        available=False,
                        disabled=False,
                        detail=connection.last_error or "not connected",
                    )
                )
            found.extend(
                ToolStatus(exposed, source, "mcp", config.handlers, None, True, False)
                for exposed in sorted(connection.tools)
            )
        return found

    @asynccontextmanager
    async def _client(self, config: MCPServerConfig) -> AsyncIterator[Client]:
        if config.url is None:
            assert config.command is not None
            params = StdioServerParameters(
                command=config.command, args=list(config.args), env=config.env, cwd=config.cwd
            )
            async with Client(params, mode="legacy") as client:
                yield client
            return
        async with (
            httpx2.AsyncClient(
                headers=config.headers, timeout=httpx2.Timeout(30.0, read=300.0)
            ) as http,
            Client(streamable_http_client(config.url, http_client=http), mode="legacy") as client,
        ):
            yield client

    async def _supervise(self, connection: _Connection) -> None:
        config = connection.config
        wait = RETRY_FIRST_SECONDS
        failures = 0
        # A cancellation the client library swallowed while closing must not reconnect.
        while not self._stopping:
            try:
                async with self._client(config) as client:
                    listed = await client.list_tools()
                    self._install(connection, client, listed.tools)
                    failures, wait = 0, RETRY_FIRST_SECONDS
                    log.info(
                        "MCP server %r connected over %s with %d tools",
                        config.name,
                        config.transport,
                        len(connection.tools),
                    )
                    await self._watch(connection, client)
                    log.warning("MCP server %r stopped answering; reconnecting", config.name)
            except asyncio.CancelledError:
                self._uninstall(connection)
                raise
            except Exception as exc:
                failures += 1
                connection.last_error = _reason(exc)
                # The first failure is an error an operator must see; repeats are quieter.
                level = logging.ERROR if failures == 1 else logging.DEBUG
                log.log(
                    level,
                    "MCP server %r could not be used (%s). Otomo runs without its tools and "
                    "retries in the background; check its entry in MCP_SERVERS_FILE.",
                    config.name,
                    connection.last_error,
                )
            self._uninstall(connection)
            await asyncio.sleep(wait)
            wait = min(wait * 2, RETRY_MAX_SECONDS)

    async def _watch(self, connection: _Connection, client: Client) -> None:
        """Return when the server is gone (a failed listing, or a call that saw it break);
        a listing that changed replaces the offered tools."""
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(connection.broken.wait(), self._ping_every)
            if connection.broken.is_set():
                return
            try:
                listed = await asyncio.wait_for(
                    client.list_tools(cache_mode="bypass"), PING_TIMEOUT_SECONDS
                )
            except Exception as exc:
                connection.last_error = _reason(exc)
                return
            if _listing(listed.tools) != connection.listing:
                self._uninstall(connection)
                self._install(connection, client, listed.tools)

    def _install(self, connection: _Connection, client: Client, tools: list[Any]) -> None:
        config = connection.config
        source = f"mcp:{config.name}"
        connection.client = client
        connection.broken.clear()
        connection.last_error = None
        connection.listing = _listing(tools)
        address = config.url or json.dumps([config.command, *config.args])
        for listed in tools:
            exposed = exposed_name(config.name, listed.name)
            schema = dict(listed.input_schema or {})
            schema.setdefault("type", "object")
            problem = schema_problem(schema)
            if problem is not None:
                log.warning("MCP tool %s is not offered: its %s.", exposed, problem)
                continue
            taken = connection.tools.get(exposed)
            other = self._registry.taken_by(exposed)
            if taken is not None or self._registry.get(exposed) is not None or other is not None:
                # Names that differ only in characters outside the name rule meet here.
                log.warning(
                    "MCP tool %r of server %r is not offered: its name becomes %s, which %s "
                    "already has (or is sent to the model as). Rename one of them in the server.",
                    listed.name,
                    config.name,
                    exposed,
                    f"its tool {taken!r}"
                    if taken is not None
                    else f"the tool {other or exposed!r}",
                )
                continue
            description = (listed.description or listed.title or listed.name)[:2000]
            provider = provider_identity(
                source, address, definition_hash(exposed, description, schema)
            )
            check = arguments_check(exposed, schema)
            connection.tools[exposed] = listed.name
            self._registry.register(
                Tool(
                    name=exposed,
                    description=description,
                    parameters=schema,
                    handler=self._handler(connection, exposed, listed.name, check),
                    timeout=min(self._timeout + TIMEOUT_GRACE_SECONDS, MAX_TIMEOUT_SECONDS),
                    requires_approval=source not in self._trusted,
                    source=source,
                    handlers=frozenset(config.handlers or self._handler_names),
                    check_arguments=check,
                    provider=provider,
                    # Its answers are the server's words, not the bot's.
                    untrusted="plugin",
                    # An MCP SDK titles every input schema after its function
                    # (`rollArguments`): only the tool's own title names it for members.
                    look=look_of({**schema, "title": None}, listed.title),
                )
            )
            self._keep_grants(exposed, provider)
        self.connected.set()

    def _keep_grants(self, exposed: str, provider: str) -> None:
        """A tool whose definition (or server) changed starts over without its grants."""
        if self._grants is None:
            return
        task = asyncio.get_running_loop().create_task(
            self._grants.keep_grants_for(exposed, provider)
        )
        self._dropping.add(task)
        task.add_done_callback(self._dropped)

    def _dropped(self, task: asyncio.Task[int]) -> None:
        self._dropping.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("Could not drop the grants of a changed MCP tool: %s", task.exception())

    def _uninstall(self, connection: _Connection) -> None:
        for exposed in connection.tools:
            self._registry.unregister(exposed)
        connection.tools = {}
        connection.client = None

    def _handler(
        self, connection: _Connection, exposed: str, original: str, check: ArgumentsCheck
    ) -> Any:
        server = connection.config.name
        timeout = self._timeout
        max_bytes, keep = self._max_answer_bytes, self._max_result_chars

        async def call(ctx: ToolContext[object], /, **arguments: Any) -> Any:
            problem = check(arguments)
            if problem is not None:
                raise ToolError(f"{problem} It was not run; call it again with valid arguments.")
            client = connection.client
            if client is None:
                raise ToolError(
                    f"The MCP server {server!r} behind {exposed} is not connected right now; "
                    "tell the user the tool is unavailable for the moment."
                )
            try:
                result = await client.call_tool(original, arguments, read_timeout_seconds=timeout)
            except MCPError as exc:
                if exc.code == REQUEST_TIMEOUT:
                    raise ToolError(
                        f"{exposed} did not answer within {timeout:g} seconds; it may still be "
                        "working. Tell the user it timed out rather than calling it again at once."
                    ) from None
                raise ToolError(f"{exposed} failed: {exc.error.message}") from None
            except Exception as exc:
                connection.broken.set()
                raise ToolError(
                    f"The connection to the MCP server {server!r} broke during {exposed} "
                    f"({_reason(exc)}); it may not have run. Tell the user and do not retry "
                    "right away."
                ) from None
            if result_bytes(result) > max_bytes:
                raise ToolError(too_large(exposed, max_bytes))
            output = result_output(result)
            if result.is_error:
                detail = output if isinstance(output, str) else json.dumps(output)
                raise ToolError(f"{exposed} reported an error: {detail[:500]}")
            return clip_output(output, keep)

        return call
