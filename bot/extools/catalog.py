"""External tools in the registry: restored from rows, kept healthy, offered only when alive."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.agent.tools import MAX_TIMEOUT_SECONDS, Tool, ToolContext, ToolError, ToolRegistry
from bot.agent.tools.registry import ToolNameTaken, wire_name
from bot.extools.answers import DEFAULT_MAX_ANSWER_BYTES, DEFAULT_MAX_RESULT_CHARS, clip_output
from bot.extools.callbacks import CallbackClient, Unreachable
from bot.extools.credentials import SHARED, Caller
from bot.extools.looks import look_of
from bot.extools.registration import (
    Refused,
    Registration,
    definition_hash,
    provider_identity,
    shown_url,
)
from bot.extools.schemas import arguments_check
from bot.extools.store import ExternalToolStore
from bot.runtime.background import cancel_and_wait
from bot.runtime.clock import Clock
from bot.storage.external_tools import ExternalToolRow
from bot.storage.outage import DatabaseHealth

log = logging.getLogger(__name__)

# The bot's own timeout fires a moment after the callback's, so the model reads ours.
TIMEOUT_GRACE_SECONDS = 1.0
# How soon a registration made through another bot process is offered by this one.
REFRESH_SECONDS = 5.0


class ProviderGrants(Protocol):
    """The always-allow grants of tools (the agent's approvals service has them)."""

    async def keep_grants_for(self, tool_name: str, provider: str | None) -> int:
        """Drop every grant of tool_name made for another provider."""


@dataclass(frozen=True)
class ToolStatus:
    """One external tool as admins see it in `/tools list`."""

    name: str
    source: str
    kind: str  # "http" or "mcp"
    handlers: tuple[str, ...] | None
    guild_id: int | None
    available: bool
    disabled: bool
    detail: str | None = None


class ExternalTools:
    """Registrations from the tools API, mirrored into the tool registry of this process."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        registry: ToolRegistry,
        *,
        handler_names: frozenset[str],
        trusted_sources: frozenset[str],
        check_every: float,
        health: DatabaseHealth | None = None,
        max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
        max_result_chars: int = DEFAULT_MAX_RESULT_CHARS,
        grants: ProviderGrants | None = None,
    ) -> None:
        self.store = ExternalToolStore(sessions, clock)
        self._health = health or DatabaseHealth()
        self.handler_names = handler_names
        self._registry = registry
        self._trusted = trusted_sources
        self._check_every = check_every
        self._max_result_chars = max_result_chars
        self._client = CallbackClient(max_answer_bytes)
        # What this catalog put in the registry, by name, with the row it was built from.
        self._installed: dict[str, tuple[object, ...]] = {}
        self._grants = grants
        # Registrations not offered, and why: a tool of the bot's own has their name, or
        # another tool is sent to the model under the name theirs would be sent as.
        self._not_offered: dict[str, str] = {}
        self._task: asyncio.Task[None] | None = None

    # -- what the API does ----------------------------------------------------------------

    async def register(
        self, registration: Registration, caller: Caller = SHARED
    ) -> ExternalToolRow:
        """Store the registration (overwriting one of the same name) and offer it."""
        name = registration.name
        if self._is_builtin(name):
            raise Refused("name", f"name {name!r} is taken by a built-in tool", status=409)
        other = self._registry.taken_by(name)
        if other is not None:
            raise Refused(
                "name",
                f"name {name!r} would reach the model as {wire_name(name)!r}, which is already "
                f"the name of {other!r}: choose another name",
                status=409,
            )
        row = await self.store.save(registration, caller)
        if self._grants is not None:
            # "Always allow" was for a provider: another one (or a new definition) starts over.
            await self._grants.keep_grants_for(row.name, self.provider(row))
        # Only this row changed here; the watch loop brings other processes' changes.
        self._offer(row)
        log.info("Registered external tool %s from %s", row.name, row.source)
        if caller.shared and row.source in self._trusted:
            log.warning(
                "External tool %s registered under the trusted source %s with the shared "
                "TOOLS_API_TOKEN: it asks for approval until the plugin registers with its own "
                "token (python -m bot tools token create %s).",
                row.name,
                row.source,
                row.source,
            )
        return row

    async def unregister(self, name: str, caller: Caller = SHARED) -> bool:
        """Forget one tool; False when it was not registered (or not caller's)."""
        removed = await self.store.delete(name, caller)
        if removed:
            self._withdraw(name)
        return removed

    async def clear(self, source: str, caller: Caller = SHARED) -> list[str]:
        """Forget every tool of source; return their names."""
        names = await self.store.delete_source(source, caller)
        for name in names:
            self._withdraw(name)
        return names

    def provider(self, row: ExternalToolRow) -> str:
        """Who provides the row's tool: source, callback and definition, hashed."""
        return provider_identity(
            row.source,
            row.callback_url,
            definition_hash(row.name, row.description, row.parameters),
        )

    def trusted(self, row: ExternalToolRow) -> bool:
        """Runs without approval: its source is trusted and it came with that source's token."""
        return row.source in self._trusted and row.credential_id is not None

    async def set_disabled(self, name: str, disabled: bool) -> ExternalToolRow | None:
        """An admin turns a tool off (not offered, whatever its health) or back on."""
        row = await self.store.set_disabled(name, disabled)
        if row is not None:
            self._offer(row)
        return row

    async def statuses(self) -> list[ToolStatus]:
        """Every registration with its scope and health."""
        return [
            ToolStatus(
                name=row.name,
                source=row.source,
                kind="http",
                handlers=tuple(row.handlers) if row.handlers else None,
                guild_id=row.guild_id,
                available=row.available and row.name not in self._not_offered,
                disabled=row.disabled,
                detail=self._not_offered.get(row.name, row.last_error),
            )
            for row in await self.store.all()
        ]

    # -- keeping the registry true --------------------------------------------------------

    async def refresh(self) -> None:
        """Read the rows again (another process may have changed them)."""
        self._reconcile(await self.store.all())

    async def check_health(self) -> None:
        """Probe every enabled callback; mark what stopped or started answering."""
        rows = [row for row in await self.store.all() if not row.disabled]
        problems = await asyncio.gather(*(self._client.probe(row.callback_url) for row in rows))
        for row, problem in zip(rows, problems, strict=True):
            alive = problem is None
            if alive != row.available or problem != row.last_error:
                if alive:
                    log.info("External tool %s answers again", row.name)
                else:
                    log.warning("External tool %s is unavailable: %s", row.name, problem)
                await self.store.mark(row.name, alive, problem)
        await self.refresh()

    async def restore(self) -> None:
        """Refresh at start; without the database now, the watch loop restores them later."""
        with self._health.tolerated(recovers=False):
            await self.refresh()

    def start(self) -> None:
        """Restore registrations now and check their health periodically."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._watch())

    async def stop(self) -> None:
        """Stop checking; close the connection pool."""
        await cancel_and_wait(self._task)
        self._task = None
        await self._client.close()

    async def _watch(self) -> None:
        # Rows are read often (another process may have taken a registration); callbacks are
        # probed every check_every seconds.
        every = min(REFRESH_SECONDS, self._check_every)
        loop = asyncio.get_running_loop()
        next_check = loop.time()
        while True:
            try:
                if loop.time() >= next_check:
                    next_check = loop.time() + self._check_every
                    await self.check_health()
                else:
                    await self.refresh()
            except Exception as exc:
                if not self._health.noticed(exc):
                    log.exception("Checking external tools failed; trying again later")
            await asyncio.sleep(every)

    def _is_builtin(self, name: str) -> bool:
        return self._registry.get(name) is not None and name not in self._installed

    def _reconcile(self, rows: list[ExternalToolRow]) -> None:
        """Make the registry offer exactly these rows (those available and enabled)."""
        named = {row.name for row in rows}
        for name in self._installed.keys() - named:
            self._withdraw(name)
        for name in self._not_offered.keys() - named:
            del self._not_offered[name]
        for row in rows:
            self._offer(row)

    def _offer(self, row: ExternalToolRow) -> None:
        """Offer the row's tool if it is available and enabled; withdraw it otherwise."""
        if not row.available or row.disabled:
            self._withdraw(row.name)
            return
        if self._is_builtin(row.name):
            # Restored from a time the built-in was off (web_search without its key): the
            # bot's own tool wins, and the plugin's is never offered in its place.
            self._refuse(row, "not offered: a built-in tool has this name")
            return
        signature = self._signature(row)
        if self._installed.get(row.name) == signature:
            return
        try:
            self._registry.register(self._tool_for(row))
        except ToolNameTaken as taken:
            self._refuse(row, f"not offered: {taken}")
            return
        self._installed[row.name] = signature
        self._not_offered.pop(row.name, None)

    def _refuse(self, row: ExternalToolRow, why: str) -> None:
        if self._not_offered.get(row.name) != why:
            self._not_offered[row.name] = why
            log.warning(
                "External tool %s from %s is %s. The plugin should register under another name.",
                row.name,
                row.source,
                why,
            )

    def _withdraw(self, name: str) -> None:
        if self._installed.pop(name, None) is not None:
            self._registry.unregister(name)
        self._not_offered.pop(name, None)

    def _signature(self, row: ExternalToolRow) -> tuple[object, ...]:
        """Everything a Tool is built from: rebuilt only when one of them changed."""
        return (
            row.description,
            row.parameters,
            row.callback_url,
            row.source,
            row.timeout_seconds,
            tuple(row.handlers or ()),
            row.guild_id,
            self.trusted(row),
        )

    def _tool_for(self, row: ExternalToolRow) -> Tool:
        name, url, timeout = row.name, row.callback_url, row.timeout_seconds
        check = arguments_check(name, row.parameters)
        keep = self._max_result_chars

        async def call(ctx: ToolContext[object], /, **arguments: Any) -> Any:
            problem = check(arguments)
            if problem is not None:
                raise ToolError(f"{problem} It was not run; call it again with valid arguments.")
            try:
                output = await self._client.call(
                    url, name, arguments, ctx.call_id, ctx.raw_arguments, timeout
                )
            except Unreachable as exc:
                log.warning(
                    "External tool %s is unavailable: its callback %s is down", name, shown_url(url)
                )
                await self.store.mark(name, False, str(exc))
                await self.refresh()
                raise
            return clip_output(output, keep)

        return Tool(
            name=name,
            description=row.description,
            parameters=row.parameters,
            handler=call,
            timeout=min(timeout + TIMEOUT_GRACE_SECONDS, MAX_TIMEOUT_SECONDS),
            requires_approval=not self.trusted(row),
            source=row.source,
            guild_id=row.guild_id,
            handlers=frozenset(row.handlers or self.handler_names),
            check_arguments=check,
            provider=self.provider(row),
            look=look_of(row.parameters),
            # Its answers are the plugin's words, not the bot's.
            untrusted="plugin",
        )
