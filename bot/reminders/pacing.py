"""Pacing sends to Discord's limits before sending, instead of collecting 429s.

Discord allows about 5 messages per 5 s in a channel and 50 requests per second per bot. A lane
that waits here holds no send slot, so a burst over many channels runs at the global rate while
one busy channel waits for its own window only. Both limits are sliding windows over the last
sends, which never exceed Discord's fixed windows however those are aligned.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable

CHANNEL_MESSAGES = 5
CHANNEL_WINDOW_SECONDS = 5.0
# Discord's windows and ours start at slightly different instants; stay this much behind.
MARGIN_SECONDS = 0.02


class _Window:
    """At most `count` events in any `seconds`: when the next one may happen."""

    def __init__(self, count: int, seconds: float) -> None:
        self.count = count
        self.seconds = seconds
        self.times: deque[float] = deque(maxlen=count)

    def delay(self, now: float) -> float:
        if len(self.times) < self.count:
            return 0.0
        return max(0.0, self.times[0] + self.seconds + MARGIN_SECONDS - now)

    def record(self, now: float) -> None:
        self.times.append(now)


class SendPacer:
    """Waits until a message to a channel fits both the channel's and the bot's window."""

    def __init__(
        self,
        requests_per_second: float,
        *,
        channel_messages: int = CHANNEL_MESSAGES,
        channel_window: float = CHANNEL_WINDOW_SECONDS,
        monotonic: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        # A share below 1/s (many processes) still sends: one request per 1/rate seconds.
        per_second = max(1, int(requests_per_second))
        window = per_second / requests_per_second if requests_per_second < 1 else 1.0
        self._global = _Window(per_second, window)
        self._channel_messages = channel_messages
        self._channel_window = channel_window
        self._channels: dict[int, _Window] = {}
        self._monotonic = monotonic
        self._sleep = sleep
        self._lock = asyncio.Lock()

    async def wait_turn(self, channel_id: int) -> None:
        """Return when a message to channel_id may be sent now; counts it as sent."""
        channel = self._channels.get(channel_id)
        if channel is None:
            channel = self._channels[channel_id] = _Window(
                self._channel_messages, self._channel_window
            )
        # The channel's own window first, without the lock: other channels go on meanwhile.
        # One lane per channel and one waiter under the lock, so one sleep always suffices.
        if (wait := channel.delay(self._monotonic())) > 0:
            await self._sleep(wait)
        async with self._lock:
            if (wait := self._global.delay(self._monotonic())) > 0:
                await self._sleep(wait)
            now = self._monotonic()
            self._global.record(now)
            channel.record(now)
        if len(self._channels) > 10_000:
            self._forget_idle()

    def _forget_idle(self) -> None:
        now = self._monotonic()
        for channel_id, window in list(self._channels.items()):
            if not window.times or window.times[-1] + self._channel_window < now:
                del self._channels[channel_id]
