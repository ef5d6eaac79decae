"""One classifier for failed sends, and the one retry for sends a member waits on."""

from __future__ import annotations

from typing import Any

import aiohttp
import discord
import pytest

from bot.discord_ui.sends import classify, sent
from bot.runtime.send_failures import PermanentSendError, RetryableSendError


class Response:
    """What discord.HTTPException reads from an aiohttp response."""

    def __init__(self, status: int, headers: dict[str, str] | None = None) -> None:
        self.status = status
        self.reason = "reason"
        self.headers = headers or {}


def http(kind: type[discord.HTTPException], status: int, **headers: str) -> Any:
    return kind(Response(status, headers), {"message": "m", "code": 50001})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("exc", "retryable"),
    [
        (http(discord.HTTPException, 429, **{"Retry-After": "2.5"}), True),
        (http(discord.DiscordServerError, 503), True),
        (http(discord.DiscordServerError, 500), True),
        (aiohttp.ClientConnectionError("reset"), True),
        (TimeoutError(), True),
        (http(discord.Forbidden, 403), False),
        (http(discord.NotFound, 404), False),
        (http(discord.HTTPException, 400), False),
    ],
)
def test_every_send_failure_is_retryable_or_permanent(exc: Exception, retryable: bool) -> None:
    failure = classify(exc)

    assert failure is not None and failure.retryable is retryable
    assert isinstance(failure, RetryableSendError if retryable else PermanentSendError)


def test_a_429_keeps_discords_retry_after_and_other_errors_are_not_send_failures() -> None:
    failure = classify(http(discord.HTTPException, 429, **{"Retry-After": "2.5"}))

    assert failure is not None and failure.retry_after == 2.5
    assert classify(ValueError("a bug")) is None


async def test_a_retryable_failure_is_retried_after_a_backoff_then_succeeds() -> None:
    calls: list[int] = []
    waits: list[float] = []

    async def send() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise http(discord.DiscordServerError, 503)
        return "posted"

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    assert await sent(send, sleep=sleep) == "posted"
    assert waits == [1.0, 2.0]


async def test_a_permanent_failure_is_raised_at_once_in_the_shared_vocabulary() -> None:
    calls: list[int] = []

    async def send() -> None:
        calls.append(1)
        raise http(discord.Forbidden, 403)

    async def sleep(seconds: float) -> None:
        raise AssertionError("a refusal is not retried")

    with pytest.raises(PermanentSendError, match="403"):
        await sent(send, sleep=sleep)
    assert calls == [1]
