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
from collections.abc import Awaitable, Callable, Iterable

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

    def resume(self, posts: Iterable[tuple[int, float]]) -> None:
        """Count earlier posts, (channel, seconds ago), against their channels' windows and the
        bot's, once, before the first send: Discord still counts a stopped process's last
        messages, so its successor starts where it was."""
        now = self._monotonic()
        for channel_id, ago in sorted(posts, key=lambda post: -post[1]):  # oldest first
            if 0 <= ago < self._channel_window:
                self._channel(channel_id).record(now - ago)
            if 0 <= ago < self._global.seconds:
                self._global.record(now - ago)

    async def wait_channel(self, channel_id: int) -> None:
        """Return when channel_id's own window has room (counts nothing): a lane waits here
        before taking a send slot, so a busy channel holds no slot while other channels go on."""
        if (wait := self._channel(channel_id).delay(self._monotonic())) > 0:
            await self._sleep(wait)

    async def wait_turn(self, channel_id: int) -> None:
        """Return when a message to channel_id may be sent now; counts it as sent. Call it right
        before the request: what happens in between shifts the send past the window's count."""
        channel = self._channel(channel_id)
        # One lane per channel and one waiter under the lock, so one sleep always suffices;
        # after wait_channel the channel's window has room already.
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

    def _channel(self, channel_id: int) -> _Window:
        channel = self._channels.get(channel_id)
        if channel is None:
            channel = self._channels[channel_id] = _Window(
                self._channel_messages, self._channel_window
            )
        return channel

    def _forget_idle(self) -> None:
        now = self._monotonic()
        for channel_id, window in list(self._channels.items()):
            if not window.times or window.times[-1] + self._channel_window < now:
                del self._channels[channel_id]
