"""The fake's gateway: websocket connections, sessions that survive them, and what flows on them.

HELLO, IDENTIFY -> READY -> GUILD_CREATE, heartbeats, RESUME with replay of missed events,
member requests, and the intent rules that decide which dispatches a session receives.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import secrets
import time
import zlib
from collections import deque
from collections.abc import Callable, Iterator

from aiohttp import WSMsgType, web

from tests.fakes.discord.state import FakeDiscordState
from tests.fakes.discord.world import Json, snowflakes

# Gateway opcodes (API v10).
OP_DISPATCH = 0
OP_HEARTBEAT = 1
OP_IDENTIFY = 2
OP_PRESENCE_UPDATE = 3
OP_VOICE_STATE_UPDATE = 4
OP_RESUME = 6
OP_RECONNECT = 7
OP_REQUEST_GUILD_MEMBERS = 8
OP_INVALID_SESSION = 9
OP_HELLO = 10
OP_HEARTBEAT_ACK = 11

# Intents that change what the fake sends, as on the real gateway.
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_PRESENCES = 1 << 8
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_MESSAGE_CONTENT = 1 << 15
PRIVILEGED_INTENTS = INTENT_GUILD_MEMBERS | INTENT_GUILD_PRESENCES | INTENT_MESSAGE_CONTENT


def _zstd_stream() -> Callable[[bytes], bytes] | None:
    """A zstd-stream frame encoder, if this interpreter has zstd (discord.py then asks for it)."""
    try:
        import zstandard
    except ImportError:
        try:
            from compression import zstd
        except ImportError:
            return None
        stdlib = zstd.ZstdCompressor()
        return lambda data: stdlib.compress(data, mode=zstd.ZstdCompressor.FLUSH_BLOCK)
    compressobj = zstandard.ZstdCompressor().compressobj()
    return lambda data: (
        compressobj.compress(data) + compressobj.flush(zstandard.COMPRESSOBJ_FLUSH_BLOCK)
    )


class GatewayConnection:
    """One websocket; owns the transport compression state, which is per connection."""

    def __init__(self, ws: web.WebSocketResponse, compress: str | None, path: str) -> None:
        self.ws = ws
        self.compress = compress
        self.path = path
        self.session: GatewaySession | None = None
        self.closed_by_server = False
        self._lock = asyncio.Lock()
        self._zlib = zlib.compressobj() if compress == "zlib-stream" else None
        self._zstd = _zstd_stream() if compress == "zstd-stream" else None

    async def send(self, payload: Json) -> None:
        """Send one gateway payload, compressed the way the client asked for."""
        data = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
        # The lock keeps compressed frames in stream order when several tasks dispatch at once.
        async with self._lock:
            if self.ws.closed:
                return
            with contextlib.suppress(ConnectionResetError, RuntimeError):
                if self._zlib is not None:
                    # zlib-stream: one deflate stream per connection, each payload ends with a
                    # Z_SYNC_FLUSH (00 00 ff ff), which is how discord.py finds message boundaries.
                    await self.ws.send_bytes(
                        self._zlib.compress(data) + self._zlib.flush(zlib.Z_SYNC_FLUSH)
                    )
                elif self._zstd is not None:
                    await self.ws.send_bytes(self._zstd(data))
                else:
                    await self.ws.send_str(data.decode())


class GatewaySession:
    """A gateway session: outlives its connection until invalidated, so RESUME can replay."""

    BACKLOG = 1000

    def __init__(self, session_id: str, intents: int, bot_id: int, shard: list[int] | None) -> None:
        self.id = session_id
        self.intents = intents
        self.bot_id = bot_id
        self.shard = shard
        self.seq = 0
        self.ready = False
        self.conn: GatewayConnection | None = None
        self.backlog: deque[Json] = deque(maxlen=self.BACKLOG)
        self.lock = asyncio.Lock()

    def owns(self, data: Json) -> bool:
        """Discord routes a guild's events to shard (guild_id >> 22) % count, DMs to shard 0."""
        if self.shard is None:
            return True
        guild_id = data.get("guild_id")
        owner = 0 if not guild_id else (int(guild_id) >> 22) % int(self.shard[1])
        return owner == int(self.shard[0])

    def wants(self, event: str, data: Json) -> bool:
        """Shard routing, then intents: guild and DM message events need their intents."""
        if not self.owns(data):
            return False
        if event.startswith("MESSAGE_") and not event.startswith("MESSAGE_REACTION"):
            needed = INTENT_GUILD_MESSAGES if data.get("guild_id") else INTENT_DIRECT_MESSAGES
            return bool(self.intents & needed)
        return True

    def shape(self, event: str, data: Json) -> Json:
        """Without MESSAGE_CONTENT, Discord blanks guild messages not by/mentioning the bot."""
        if (
            event not in ("MESSAGE_CREATE", "MESSAGE_UPDATE")
            or self.intents & INTENT_MESSAGE_CONTENT
        ):
            return data
        if not data.get("guild_id") or int(data.get("author", {}).get("id", 0)) == self.bot_id:
            return data
        if any(int(m["id"]) == self.bot_id for m in data.get("mentions", [])):
            return data
        return {**data, "content": "", "embeds": [], "attachments": [], "components": []}

    async def emit(self, event: str, data: Json, *, addressed: bool = False) -> None:
        """Sequence one dispatch, keep it for RESUME, and send it if connected; addressed
        events (READY, this shard's GUILD_CREATE) skip the routing."""
        if not addressed and not self.wants(event, data):
            return
        async with self.lock:
            self.seq += 1
            frame = {"op": OP_DISPATCH, "t": event, "s": self.seq, "d": self.shape(event, data)}
            self.backlog.append(frame)
            if self.conn is not None:
                await self.conn.send(frame)

    async def resume(self, conn: GatewayConnection, after_seq: int) -> None:
        """Attach a new connection, replay what it missed, then say RESUMED."""
        async with self.lock:
            self.conn = conn
            conn.session = self
            for frame in list(self.backlog):
                if frame["s"] > after_seq:
                    await conn.send(frame)
            self.seq += 1
            frame = {"op": OP_DISPATCH, "t": "RESUMED", "s": self.seq, "d": {}}
            self.backlog.append(frame)
            await conn.send(frame)


class GatewayGate:
    """New gateway connections wait here, before HELLO, until admitted one at a time in the
    order they came: a bot process can start (imports, migrations, login) and wait, warm, for
    its turn, as if it had started right when the test admits it."""

    def __init__(self, changed: Callable[[], None]) -> None:
        self._waiting: deque[asyncio.Future[None]] = deque()
        self._changed = changed
        self._arrived = asyncio.Event()

    @property
    def waiting(self) -> int:
        """Connections waiting for their turn now."""
        return sum(not future.done() for future in self._waiting)

    def admit_one(self) -> None:
        """Let the longest-waiting connection go on to HELLO."""
        while self._waiting:
            future = self._waiting.popleft()
            if not future.done():
                future.set_result(None)
                return
        raise AssertionError("no gateway connection is waiting to be admitted")

    async def someone_waiting(self) -> None:
        """Return once a connection waits to be admitted."""
        while not self.waiting:
            self._arrived.clear()
            await self._arrived.wait()

    async def wait_turn(self, ws: web.WebSocketResponse) -> bool:
        """Wait until admitted (True), or until the client hangs up first (False)."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append(future)
        self._arrived.set()
        self._changed()
        # A client says nothing before HELLO: whatever it sends now is its closing.
        hung_up = asyncio.ensure_future(ws.receive())
        try:
            await asyncio.wait([future, hung_up], return_when=asyncio.FIRST_COMPLETED)
            return future.done() and not future.cancelled()
        finally:
            future.cancel()  # a connection closed while waiting gives its turn away
            hung_up.cancel()
            # Ended before the connection reads again: one reader at a time.
            with contextlib.suppress(asyncio.CancelledError):
                await hung_up
            self._changed()


class GatewayServer(FakeDiscordState):
    """The gateway websocket of the fake, and the test-facing ways to drive it."""

    async def close(self) -> None:
        """Close every gateway connection (code 1001), then stop listening."""
        for conn in list(self._connections):
            conn.closed_by_server = True
            with contextlib.suppress(Exception):
                await conn.ws.close(code=1001, message=b"fake Discord shutting down")
        await super().close()

    async def dispatch(self, event: str, data: Json) -> None:
        """Send a DISPATCH event to every session (kept for RESUME when disconnected)."""
        self.dispatched.append({"t": event, "d": copy.deepcopy(data)})
        for session in list(self._sessions.values()):
            if self._forced_shard is None:
                await session.emit(event, data)
            elif session.shard is not None and int(session.shard[0]) == self._forced_shard:
                await session.emit(event, data, addressed=True)
        self._notify()

    @contextlib.contextmanager
    def events_to_shard(self, shard_id: int) -> Iterator[None]:
        """Send the events dispatched inside to shard_id's sessions only, whatever their guild.

        Discord routes by guild; this stands for an event reaching another process than the one
        that posted the message it is about (a guild moved by a restart or a re-sharding).
        """
        self._forced_shard = shard_id
        try:
            yield
        finally:
            self._forced_shard = None

    async def disconnect_gateway(self, code: int = 4000, *, resumable: bool = True) -> None:
        """Close all gateway connections; ``resumable=False`` makes RESUME get INVALID_SESSION."""
        for conn in list(self._connections):
            conn.closed_by_server = True
            if not resumable and conn.session is not None:
                self._sessions.pop(conn.session.id, None)
            with contextlib.suppress(Exception):
                await conn.ws.close(code=code, message=b"fake disconnect")

    def hold_gateway(self) -> GatewayGate:
        """From now on, new gateway connections wait for ``admit_one()`` before HELLO."""
        self.gateway_gate = GatewayGate(self._notify)
        return self.gateway_gate

    async def wait_for_gateway_ready(self, timeout: float = 10.0) -> Json:  # noqa: ASYNC109
        """Wait until a session got READY and GUILD_CREATE; returns its IDENTIFY ``d``."""
        await self.wait_until(
            lambda: any(s.ready for s in self._sessions.values()), timeout, what="a gateway session"
        )
        identifies = [op["d"] for op in self.received_ops if op.get("op") == OP_IDENTIFY]
        return identifies[-1] if identifies else {}

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        """The gateway websocket: HELLO, then IDENTIFY/RESUME, heartbeats and dispatches."""
        ws = web.WebSocketResponse(compress=False, max_msg_size=0, timeout=2.0)
        if not ws.can_prepare(request).ok:
            return await self._rest(request)
        await ws.prepare(request)
        compress = request.query.get("compress")
        conn = GatewayConnection(ws, compress, request.path)
        self._connections.add(conn)
        try:
            if request.query.get("encoding", "json") != "json":
                await ws.close(code=4002, message=b"the fake speaks encoding=json only")
                return ws
            if compress not in (None, "zlib-stream", "zstd-stream") or (
                compress == "zstd-stream" and conn._zstd is None
            ):
                await ws.close(code=4000, message=b"unsupported compress")
                return ws
            if self.gateway_gate is not None and not await self.gateway_gate.wait_turn(ws):
                return ws
            await conn.send(
                {"op": OP_HELLO, "d": {"heartbeat_interval": self.heartbeat_interval_ms}}
            )
            async for msg in ws:
                if msg.type is WSMsgType.TEXT:
                    await self._on_gateway_payload(conn, json.loads(msg.data))
        finally:
            self._connections.discard(conn)
            session = conn.session
            if session is not None and session.conn is conn:
                session.conn = None
                # A client that closes with 1000/1001 ends its session, as on Discord.
                if not conn.closed_by_server and ws.close_code in (1000, 1001):
                    self._sessions.pop(session.id, None)
            self._notify()
        return ws

    async def _on_gateway_payload(self, conn: GatewayConnection, payload: Json) -> None:
        """Handle one opcode from the client."""
        op = payload.get("op")
        data = payload.get("d")
        logged = copy.deepcopy(payload)
        if isinstance(logged.get("d"), dict) and "token" in logged["d"]:
            logged["d"]["token"] = "<redacted>"
        self.received_ops.append(logged)
        if op == OP_HEARTBEAT:
            self.heartbeats += 1
            await conn.send({"op": OP_HEARTBEAT_ACK})
        elif op == OP_IDENTIFY:
            await self._identify(conn, data or {})
        elif op == OP_RESUME:
            await self._resume(conn, data or {})
        elif op == OP_REQUEST_GUILD_MEMBERS:
            await self._request_members(conn, data or {})
        elif op in (OP_PRESENCE_UPDATE, OP_VOICE_STATE_UPDATE):
            pass  # recorded in received_ops; nothing in this world reacts to presence or voice
        else:
            await conn.ws.close(code=4001, message=b"Unknown opcode")
        self._notify()

    async def _identify(self, conn: GatewayConnection, data: Json) -> None:
        """IDENTIFY -> READY (guild unavailable) -> GUILD_CREATE, like Discord."""
        if conn.session is not None:
            await conn.ws.close(code=4005, message=b"Already authenticated.")
            return
        if self.token_revoked_at_gateway or not self._token_ok(data.get("token")):
            await conn.ws.close(code=4004, message=b"Authentication failed.")
            return
        intents = int(data.get("intents", 0))
        if (
            self.allowed_intents is not None
            and intents & PRIVILEGED_INTENTS & ~self.allowed_intents
        ):
            await conn.ws.close(code=4014, message=b"Disallowed intent(s).")
            return
        shard = data.get("shard")
        session = GatewaySession(secrets.token_hex(16), intents, self.world.bot.id, shard)
        self._sessions[session.id] = session
        session.conn = conn
        conn.session = session
        self.identifies += 1
        # Discord sends each shard the guilds (guild_id >> 22) % count routes to it.
        guilds = [
            g for g in self.world.guilds if shard is None or (g.id >> 22) % shard[1] == shard[0]
        ]
        ready: Json = {
            "v": 10,
            "user": {
                **self.world.bot.payload(),
                "verified": True,
                "mfa_enabled": False,
                "flags": 0,
            },
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": self.resume_gateway_url,
            # Unverified bot with the privileged intents switched on in the portal.
            "application": {"id": str(self.world.bot.id), "flags": (1 << 15) | (1 << 19)},
            "private_channels": [],
            "relationships": [],
            "user_settings": {},
        }
        if shard is not None:
            ready["shard"] = shard
        events: list[tuple[str, Json]] = [("READY", ready)]
        for guild in guilds:
            payload = self.world.guild_create_payload(
                with_members=bool(intents & INTENT_GUILD_MEMBERS), guild_id=guild.id
            )
            events.append(("GUILD_CREATE", payload))
        for event, payload in events:
            self.dispatched.append({"t": event, "d": copy.deepcopy(payload)})
            await session.emit(event, payload, addressed=True)
        session.ready = True
        self.ready_at.append(time.monotonic())

    async def _resume(self, conn: GatewayConnection, data: Json) -> None:
        """RESUME a known session (replaying missed events) or answer INVALID_SESSION."""
        if self.token_revoked_at_gateway or not self._token_ok(data.get("token")):
            await conn.ws.close(code=4004, message=b"Authentication failed.")
            return
        session = self._sessions.get(str(data.get("session_id")))
        if session is None:
            # d=false: not resumable, so the client must IDENTIFY afresh.
            await conn.send({"op": OP_INVALID_SESSION, "d": False})
            return
        old = session.conn
        if old is not None and old is not conn:
            old.closed_by_server = True
            with contextlib.suppress(Exception):
                await old.ws.close(code=4000, message=b"session resumed elsewhere")
        self.resumes += 1
        await session.resume(conn, int(data.get("seq") or 0))

    async def _request_members(self, conn: GatewayConnection, data: Json) -> None:
        """REQUEST_GUILD_MEMBERS -> one GUILD_MEMBERS_CHUNK."""
        if conn.session is None:
            return
        query = str(data.get("query") or "").lower()
        wanted = set(snowflakes(data.get("user_ids") or []))
        guild = self.world.guild(int(data.get("guild_id") or self.world.guild_id))
        if guild is None:
            return
        members: list[Json] = []
        for member in guild.members:
            user = self.world.user(member.user_id)
            if user is None:
                continue
            if wanted and member.user_id not in wanted:
                continue
            if query and not user.username.lower().startswith(query):
                continue
            payload = self.world.member_payload(member.user_id, guild_id=guild.id)
            if payload is not None:
                members.append(payload)
        limit = int(data.get("limit") or 0)
        if limit:
            members = members[:limit]
        chunk: Json = {
            "guild_id": str(guild.id),
            "members": members,
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [str(u) for u in wanted - {int(m["user"]["id"]) for m in members}],
        }
        if data.get("nonce") is not None:
            chunk["nonce"] = data["nonce"]
        if data.get("presences"):
            chunk["presences"] = []
        await conn.session.emit("GUILD_MEMBERS_CHUNK", chunk)
