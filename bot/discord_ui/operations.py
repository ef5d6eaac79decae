"""What operators watch from the Discord side: 429s, each shard's gateway, the bot's presence
when it is degraded."""

from __future__ import annotations

import asyncio
import logging
import math
from types import SimpleNamespace
from typing import Any

import aiohttp
import discord

from bot.runtime.background import cancel_and_wait
from bot.runtime.health import Check, HealthChecks
from bot.runtime.metrics import Metrics

log = logging.getLogger(__name__)

# How often the gateway gauges and the presence are brought up to date.
WATCH_EVERY_SECONDS = 15.0
# The checks whose failure members notice (answers fail): shown as an idle presence.
DEGRADING = ("model", "database")


def rate_limit_trace(metrics: Metrics) -> aiohttp.TraceConfig:
    """An aiohttp trace for discord.py's HTTP client that counts Discord's 429 answers."""

    async def on_request_end(
        session: aiohttp.ClientSession, context: SimpleNamespace, params: Any
    ) -> None:
        response = params.response
        if response.status == 429:
            metrics.discord_rate_limited(response.headers.get("X-RateLimit-Scope", "unknown"))

    trace = aiohttp.TraceConfig()
    trace.on_request_end.append(on_request_end)
    return trace


def gateway_check(client: discord.AutoShardedClient) -> Check:
    """Passes while the client is ready and every shard's websocket is open."""
    if client.is_closed():
        return Check(False, "the client is closed")
    if not client.is_ready():
        return Check(False, "not connected yet")
    closed = [shard_id for shard_id, info in client.shards.items() if info.is_closed()]
    if closed:
        return Check(False, f"shards {closed} are disconnected")
    return Check(True, f"{len(client.shards)} shard(s) connected")


class GatewayWatch:
    """Samples each shard's connection for /metrics and shows degraded health as idle."""

    def __init__(self, client: discord.AutoShardedClient, checks: HealthChecks, metrics: Metrics):
        self._client = client
        self._checks = checks
        self._metrics = metrics
        self._degraded: bool | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self, every: float = WATCH_EVERY_SECONDS) -> None:
        """Update now and then every `every` seconds until stopped."""
        self._task = asyncio.create_task(self._loop(every), name="gateway watch")

    async def stop(self) -> None:
        """Stop updating."""
        await cancel_and_wait(self._task)

    async def _loop(self, every: float) -> None:
        while True:
            try:
                await self.update()
            except Exception:
                log.exception("Could not update the gateway gauges or the presence")
            await asyncio.sleep(every)

    async def update(self) -> None:
        """Sample the shards; set the presence when the degraded state changed."""
        for shard_id, info in self._client.shards.items():
            latency = info.latency
            self._metrics.gateway(
                shard_id,
                connected=not info.is_closed(),
                latency=latency if math.isfinite(latency) else None,
            )
        report = self._checks.report()
        failing = [name for name in DEGRADING if name in report.failing]
        degraded = bool(failing)
        if degraded == self._degraded or not self._client.is_ready():
            return
        self._degraded = degraded
        if degraded:
            text = f"degraded: the {' and the '.join(failing)} failing"
            log.warning("Otomo is degraded (%s); its presence shows idle", ", ".join(failing))
            await self._client.change_presence(
                status=discord.Status.idle, activity=discord.CustomActivity(name=text)
            )
        else:
            await self._client.change_presence(status=discord.Status.online, activity=None)
