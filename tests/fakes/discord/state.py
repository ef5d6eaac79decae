"""What the fake Discord remembers, and how tests read it and wait for it.

:class:`FakeDiscordState` holds the configuration and every piece of state; the other modules
of this package add behaviour to it as mixins (gateway, messages, people, REST routes), and
:class:`~tests.fakes.discord.fake.FakeDiscord` puts them together.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import re
import time
from abc import abstractmethod
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from aiohttp import web

from tests.fakes.discord.records import InteractionRecord, RecordedRequest
from tests.fakes.discord.rules import (
    INTERACTION_DEADLINE,
    INTERACTION_TOKEN_TTL,
    NONCE_WINDOW,
    NonceLedger,
    RateWindow,
)
from tests.fakes.discord.world import FakeUser, Json, World
from tests.fakes.local_server import LocalServer

if TYPE_CHECKING:
    from tests.fakes.discord.gateway import GatewayConnection, GatewayGate, GatewaySession
    from tests.fakes.discord.rest import Fault, Hold, Pause

_T = TypeVar("_T")

DISCORD_EPOCH_MS = 1_420_070_400_000


class FakeDiscordState(LocalServer):
    """The fake's configuration and state; ``FakeDiscord(...)`` takes these arguments."""

    def __init__(
        self,
        world: World | None = None,
        *,
        token: str | None = "fake-bot-token",
        interaction_deadline: float = INTERACTION_DEADLINE,
        interaction_token_ttl: float = INTERACTION_TOKEN_TTL,
        nonce_window: float = NONCE_WINDOW,
        heartbeat_interval_ms: int = 41_250,
        allowed_intents: int | None = None,
        shards: int = 1,
    ) -> None:
        super().__init__()
        self.world = world or World.default()
        self.token = token  # None accepts any token
        self.interaction_deadline = interaction_deadline
        self.interaction_token_ttl = interaction_token_ttl
        self.nonce_window = nonce_window
        self.heartbeat_interval_ms = heartbeat_interval_ms
        # Privileged intents "enabled in the developer portal"; None allows all (else close 4014).
        self.allowed_intents = allowed_intents
        # What GET /gateway/bot recommends; each session gets only its shard's events.
        self.shards = shards
        # True: the gateway closes IDENTIFY/RESUME with 4004 although REST still accepts the
        # token, as when it is reset between the bot's login and its gateway connection.
        self.token_revoked_at_gateway = False

        self.requests: list[RecordedRequest] = []
        self.dispatched: list[Json] = []  # {"t": event, "d": data} for every dispatch attempt
        self.received_ops: list[Json] = []  # gateway payloads from the bot, token redacted
        self.identifies = 0
        self.resumes = 0
        self.heartbeats = 0
        self.interactions: list[InteractionRecord] = []
        self.deadline_misses: list[InteractionRecord] = []
        # 429s served, by cause: "injected", "channel", "global".
        self.rate_limit_hits: Counter[str] = Counter()
        self.deleted: list[Json] = []
        self.cdn_downloads: list[str] = []  # paths of attachment downloads, in order
        self.typing: list[tuple[int, float]] = []  # (channel_id, time.monotonic())
        self.faults: list[Fault] = []
        self.holds: list[Hold] = []
        self.pauses: list[Pause] = []
        self.gateway_gate: GatewayGate | None = None  # see hold_gateway()
        self._forced_shard: int | None = None  # see events_to_shard()
        self.ready_at: list[float] = []  # time.monotonic() of every READY sent, in order

        self._last_snowflake = 0
        self._messages: dict[int, Json] = {}
        self._channel_log: dict[int, list[int]] = {}
        self._edits: dict[int, list[Json]] = {}
        self._attachment_data: dict[int, bytes] = {}
        self._nonces = NonceLedger()
        self._commands: dict[int | None, dict[tuple[str, int], Json]] = {}
        self._command_ids: dict[tuple[int | None, str, int], int] = {}
        self._dm_channels: dict[int, int] = {}  # user id -> DM channel id
        self._dm_users: dict[int, int] = {}  # DM channel id -> user id
        self._interactions_by_id: dict[int, InteractionRecord] = {}
        self._channel_limit: tuple[int, float] | None = None
        self._channel_windows: dict[int, RateWindow] = {}
        self._global_window: RateWindow | None = None
        self._sessions: dict[str, GatewaySession] = {}
        self._connections: set[GatewayConnection] = set()
        self._changed = asyncio.Event()

    # -- where it listens ------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return self.url

    @property
    def api_base(self) -> str:
        """The value for ``discord.http.Route.BASE`` / setting ``DISCORD_API_BASE``."""
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        """The value for ``DiscordWebSocket.DEFAULT_GATEWAY`` / setting ``DISCORD_GATEWAY_URL``."""
        return f"ws://127.0.0.1:{self._port}/"

    @property
    def resume_gateway_url(self) -> str:
        """Sent in READY; a separate path so tests can see the client resumed where told."""
        return f"ws://127.0.0.1:{self._port}/resume/"

    # -- provided by the gateway and REST mixins -------------------------------------------

    @abstractmethod
    async def dispatch(self, event: str, data: Json) -> None:
        """Send a DISPATCH event to every gateway session (see :mod:`.gateway`)."""

    @abstractmethod
    async def _rest(self, request: web.Request) -> web.StreamResponse:
        """Answer one REST request (see :mod:`.rest`)."""

    # -- reading state ---------------------------------------------------------------------

    def messages(self, channel_id: int) -> list[Json]:
        """Current (not deleted, not ephemeral) messages of a channel, oldest first."""
        return [copy.deepcopy(self._messages[mid]) for mid in self._channel_log.get(channel_id, [])]

    def message(self, message_id: int) -> Json | None:
        """The current payload of a message (ephemeral ones included), or None."""
        found = self._messages.get(int(message_id))
        return copy.deepcopy(found) if found is not None else None

    def edits(self, message_id: int) -> list[Json]:
        """Every edit body the bot sent for a message, in order (PATCH, @original, type 7)."""
        return copy.deepcopy(self._edits.get(int(message_id), []))

    def attachment_data(self, message_id: int) -> dict[str, bytes]:
        """Filename -> bytes of a message's attachments."""
        found = self._messages.get(int(message_id)) or {}
        return {
            a["filename"]: self._attachment_data.get(int(a["id"]), b"")
            for a in found.get("attachments", [])
        }

    def commands(self, guild_id: int | None = None) -> list[Json]:
        """Application commands the bot synced (global when ``guild_id`` is None)."""
        return copy.deepcopy(list(self._commands.get(guild_id, {}).values()))

    def dm_channel_id(self, user_id: int) -> int:
        """The DM channel between the bot and a user, created on first use like Discord's."""
        if user_id not in self._dm_channels:
            channel_id = self._snowflake()
            self._dm_channels[user_id] = channel_id
            self._dm_users[channel_id] = user_id
        return self._dm_channels[user_id]

    @property
    def unknown_requests(self) -> list[RecordedRequest]:
        """Requests to routes the fake does not implement (answered 404/405)."""
        return [r for r in self.requests if r.route is None]

    @property
    def failed_requests(self) -> list[RecordedRequest]:
        """Every request answered with a 4xx or 5xx."""
        return [r for r in self.requests if r.status >= 400]

    def describe(self, last: int = 15) -> str:
        """A short summary of recent traffic, for assertion messages."""
        requests = "\n".join(f"    {r}" for r in self.requests[-last:]) or "    (none)"
        events = ", ".join(e["t"] for e in self.dispatched[-last:]) or "(none)"
        return (
            f"  last requests:\n{requests}\n  last dispatches: {events}\n"
            f"  sessions: {len(self._sessions)} identifies={self.identifies} resumes={self.resumes}"
        )

    # -- waiting ---------------------------------------------------------------------------

    def _notify(self) -> None:
        """Wake every waiter so it re-checks its condition."""
        self._changed.set()
        self._changed = asyncio.Event()

    # A deadline argument reads better in tests than wrapping every call in asyncio.timeout.
    async def wait_until(
        self,
        predicate: Callable[[], _T | None],
        timeout: float = 5.0,  # noqa: ASYNC109
        *,
        what: str = "",
    ) -> _T:
        """Wait until ``predicate()`` is truthy and return it; AssertionError on timeout."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = predicate()
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                label = what or getattr(predicate, "__name__", "condition")
                raise AssertionError(
                    f"timed out after {timeout}s waiting for {label}\n{self.describe()}"
                )
            event = self._changed
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), remaining)

    async def wait_for_message(
        self,
        channel_id: int,
        predicate: Callable[[Json], bool] | None = None,
        timeout: float = 5.0,  # noqa: ASYNC109
        *,
        after: int | None = None,
        from_bot: bool = True,
    ) -> Json:
        """The first message in a channel newer than ``after``; only the bot's by default."""

        def find() -> Json | None:
            for message in self.messages(channel_id):
                if after is not None and int(message["id"]) <= int(after):
                    continue
                if from_bot and int(message["author"]["id"]) != self.world.bot.id:
                    continue
                if predicate is None or predicate(message):
                    return message
            return None

        try:
            found = await self.wait_until(find, timeout, what=f"a message in channel {channel_id}")
        except AssertionError as exc:
            seen = [
                f"{m['author']['username']}: {m['content'][:80]!r}"
                for m in self.messages(channel_id)
            ]
            raise AssertionError(f"{exc}\n  messages in channel {channel_id}: {seen}") from None
        return found

    async def wait_for_request(
        self,
        method: str,
        path_regex: str,
        timeout: float = 5.0,  # noqa: ASYNC109
        *,
        since: int = 0,
        predicate: Callable[[RecordedRequest], bool] | None = None,
    ) -> RecordedRequest:
        """First answered request with ``method`` ("*" = any) whose path fullmatches the regex."""
        pattern = re.compile(path_regex)

        def find() -> RecordedRequest | None:
            for recorded in self.requests[since:]:
                if (
                    recorded.status
                    and method in ("*", recorded.method)
                    and pattern.fullmatch(recorded.path)
                    and (predicate is None or predicate(recorded))
                ):
                    return recorded
            return None

        return await self.wait_until(find, timeout, what=f"request {method} {path_regex}")

    # -- ids and lookups -------------------------------------------------------------------

    def _snowflake(self) -> int:
        """A time-ordered id, strictly increasing within this fake."""
        now_ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        self._last_snowflake = max((now_ms << 22) | (1 << 17), self._last_snowflake + 1)
        return self._last_snowflake

    def _guild_id_of(self, channel_id: int) -> int | None:
        """The guild of a channel, None for a DM channel."""
        if channel_id in self._dm_users:
            return None
        guild = self.world.guild_of_channel(channel_id)
        return guild.id if guild is not None else self.world.guild_id

    def _channel_exists(self, channel_id: int) -> bool:
        return self.world.channel(channel_id) is not None or channel_id in self._dm_users

    def _user_or_fail(self, user_id: int) -> FakeUser:
        user = self.world.user(user_id)
        if user is None:
            known = [u.id for u in self.world.users]
            raise ValueError(f"unknown user {user_id}; the world has {known}")
        return user

    def _token_ok(self, token: str | None) -> bool:
        """Whether a token (with or without the "Bot " prefix) is the configured one."""
        if self.token is None:
            return True
        return token in (self.token, f"Bot {self.token}")
