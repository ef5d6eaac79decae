"""Sending to Discord: who a message may ping, the one classifier of failed sends, and the one
retry for sends someone waits on."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

import aiohttp
import discord

from bot.runtime.send_failures import PermanentSendError, RetryableSendError, SendError

log = logging.getLogger(__name__)

T = TypeVar("T")

# A member is waiting on a streamed reply: a few quick retries, then give up on this send.
LIVE_ATTEMPTS = 3
LIVE_BACKOFF_SECONDS = 1.0
LIVE_MAX_WAIT_SECONDS = 10.0


def describe(exc: discord.HTTPException) -> str:
    """`403 Missing Access (50001)`: short, for logs, rows and DMs."""
    text = exc.text or getattr(exc.response, "reason", None) or "error"
    code = f" ({exc.code})" if exc.code else ""
    return f"{exc.status} {text}{code}"


def retry_after(exc: discord.HTTPException) -> float | None:
    """Discord's Retry-After header of a 429, in seconds, when it sent one."""
    headers = getattr(exc.response, "headers", None) or {}
    try:
        return float(headers["Retry-After"])
    except (KeyError, TypeError, ValueError):
        return None


def classify(exc: BaseException) -> SendError | None:
    """Sort a send's exception: 429/5xx/network may pass, 403/404/other 4xx do not; None if it
    is not a Discord or network failure at all."""
    if isinstance(exc, SendError):
        return exc
    if isinstance(exc, discord.RateLimited):
        # Raised instead of waiting when the client has a max_ratelimit_timeout.
        return RetryableSendError("Discord rate limit", exc.retry_after)
    if isinstance(exc, (discord.Forbidden, discord.NotFound)):
        return PermanentSendError(describe(exc))
    if isinstance(exc, discord.HTTPException):
        if exc.status == 429:
            return RetryableSendError(describe(exc), retry_after(exc))
        # 400s such as "cannot send messages to this user" will not pass by retrying.
        if exc.status >= 500:
            return RetryableSendError(describe(exc))
        return PermanentSendError(describe(exc))
    if isinstance(exc, (TimeoutError, aiohttp.ClientError, OSError)):
        return RetryableSendError(f"network error: {exc!r}")
    return None


async def sent(
    send: Callable[[], Awaitable[T]],
    *,
    attempts: int = LIVE_ATTEMPTS,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> T:
    """Send now; retry what may pass (after Retry-After, else 1 s, 2 s…) a few times; raise the
    classified SendError when it fails for good."""
    for attempt in range(1, attempts + 1):
        try:
            return await send()
        except Exception as exc:
            failure = classify(exc)
            if failure is None:
                raise
            if not failure.retryable or attempt == attempts:
                raise failure from exc
            delay = failure.retry_after or LIVE_BACKOFF_SECONDS * 2 ** (attempt - 1)
            log.info("Send failed (%s); retrying in %.1f s", failure.reason, delay)
            await sleep(min(delay, LIVE_MAX_WAIT_SECONDS))
    raise AssertionError("unreachable")


def only(user_id: int) -> discord.AllowedMentions:
    """Allowed mentions that can ping user_id and nobody else, whatever the text says: never
    @everyone, @here or a role."""
    return discord.AllowedMentions(
        everyone=False, roles=False, replied_user=False, users=[discord.Object(user_id)]
    )
