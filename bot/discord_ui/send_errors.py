"""What a failed send to Discord means: worth retrying later, or refused until someone acts."""

from __future__ import annotations

from dataclasses import dataclass

import aiohttp
import discord


@dataclass(frozen=True)
class SendFailure:
    """A send that failed: whether to retry, after how long, and a short reason for logs."""

    retryable: bool
    reason: str
    retry_after: float | None = None


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


def classify(exc: BaseException) -> SendFailure | None:
    """Sort a send's exception: 429/5xx/network pass, 403/404/other 4xx do not; None if it is
    not a Discord or network failure at all."""
    if isinstance(exc, discord.RateLimited):
        # Raised instead of waiting when the client has a max_ratelimit_timeout.
        return SendFailure(True, "Discord rate limit", exc.retry_after)
    if isinstance(exc, (discord.Forbidden, discord.NotFound)):
        return SendFailure(False, describe(exc))
    if isinstance(exc, discord.HTTPException):
        if exc.status == 429:
            return SendFailure(True, describe(exc), retry_after(exc))
        # 400s such as "cannot send messages to this user" will not pass by retrying.
        return SendFailure(exc.status >= 500, describe(exc))
    if isinstance(exc, (TimeoutError, aiohttp.ClientError, OSError)):
        return SendFailure(True, f"network error: {exc!r}")
    return None
