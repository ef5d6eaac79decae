"""Every way a start can fail, as one sentence for the operator and an exit code of its own.

Codes are grouped so a supervisor can tell a setting that is wrong (restarting cannot help) from
a service that is away (a restart later may succeed); `deploy/otomo.service` relies on that.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from sqlalchemy.engine import make_url


class ExitCode(IntEnum):
    """The process's exit status for each start-up failure."""

    OK = 0
    UNEXPECTED = 1
    SETTINGS = 2
    DISCORD_TOKEN = 10
    DISCORD_INTENTS = 11
    DISCORD_UNREACHABLE = 12
    DISCORD_REFUSED = 13
    DATABASE_UNREACHABLE = 20
    DATABASE_MISSING = 21
    DATABASE_DRIVER = 22
    DATABASE_PATH = 23
    DATABASE_LOGIN = 24
    KNOWLEDGE_BASE = 30
    MCP_FILE = 31
    TOOLS_API_PORT = 32
    HEALTH_PORT = 33
    MODEL_CONFIG = 40
    MODEL_UNREACHABLE = 41
    MODEL_CLIENT = 42
    INTERRUPTED = 130


# A restart after one of these may work: the service was away, not misconfigured.
TRANSIENT = frozenset(
    {
        ExitCode.UNEXPECTED,
        ExitCode.DISCORD_UNREACHABLE,
        ExitCode.DATABASE_UNREACHABLE,
        ExitCode.TOOLS_API_PORT,
        ExitCode.HEALTH_PORT,
        ExitCode.MODEL_UNREACHABLE,
    }
)

TOKEN_FIX = (
    "copy a new one from the Discord Developer Portal (your application → Bot → Reset Token) "
    "into DISCORD_TOKEN in .env"
)
INTENTS_PAGE = "Discord Developer Portal → your application → Bot → Privileged Gateway Intents"


class StartupFailure(Exception):
    """The bot cannot start; `sentence` says what to fix, `code` is the exit status."""

    def __init__(self, code: ExitCode, sentence: str) -> None:
        super().__init__(sentence)
        self.code = code
        self.sentence = sentence


def _chain(exc: BaseException) -> list[BaseException]:
    """exc and every exception it was raised from or during, outermost first."""
    found: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and all(current is not seen for seen in found):
        found.append(current)
        current = current.__cause__ or current.__context__
    return found


def _names(exc: BaseException) -> set[str]:
    return {type(e).__name__ for e in _chain(exc)}


def _innermost_text(exc: BaseException) -> str:
    inner = _chain(exc)[-1]
    lines = str(inner).strip().splitlines()
    return lines[0][:200] if lines else type(inner).__name__


def discord_failure(exc: BaseException, intents_hint: str | None = None) -> StartupFailure | None:
    """The sentence for a failure of login or the gateway, or None if exc is not one."""
    import discord

    if isinstance(exc, discord.LoginFailure):
        return StartupFailure(
            ExitCode.DISCORD_TOKEN,
            f"Discord refused DISCORD_TOKEN (401 Unauthorized): the token is wrong or was "
            f"reset; {TOKEN_FIX}",
        )
    if isinstance(exc, discord.PrivilegedIntentsRequired):
        toggles = intents_hint or "Message Content Intent and Server Members Intent"
        return StartupFailure(
            ExitCode.DISCORD_INTENTS,
            f"Discord refused the privileged intents Otomo needs (gateway close code 4014): "
            f"switch on {toggles} in the {INTENTS_PAGE}, save, and start again",
        )
    if isinstance(exc, discord.ConnectionClosed):
        if exc.code == 4004:
            return StartupFailure(
                ExitCode.DISCORD_TOKEN,
                "Discord's gateway refused DISCORD_TOKEN (close code 4004, authentication "
                f"failed): the token was reset or revoked; {TOKEN_FIX}",
            )
        if exc.code == 4011:
            return StartupFailure(
                ExitCode.DISCORD_REFUSED,
                "Discord requires sharding for this many servers (close code 4011): set "
                "SHARD_COUNT (see docs/operations.md)",
            )
        return StartupFailure(
            ExitCode.DISCORD_REFUSED,
            f"Discord closed the gateway connection (close code {exc.code}: "
            f"{exc.reason or 'no reason given'})",
        )
    if isinstance(exc, discord.GatewayNotFound):
        return StartupFailure(
            ExitCode.DISCORD_UNREACHABLE,
            "Discord's gateway cannot be found: check the network and DISCORD_GATEWAY_URL",
        )
    if isinstance(exc, discord.HTTPException) and exc.status >= 500:
        return StartupFailure(
            ExitCode.DISCORD_UNREACHABLE,
            f"Discord answered {exc.status} at start-up: it may be having an outage; "
            "the bot can be started again later",
        )
    if isinstance(exc, discord.HTTPException):
        return StartupFailure(
            ExitCode.DISCORD_REFUSED,
            f"Discord refused a start-up request ({exc.status}: {exc.text or 'no details'})",
        )
    names = _names(exc)
    if isinstance(exc, OSError) or names & {"ClientConnectorError", "ClientConnectionError"}:
        return StartupFailure(
            ExitCode.DISCORD_UNREACHABLE,
            f"Discord cannot be reached ({_innermost_text(exc)}): check the network, "
            "DISCORD_API_BASE and DISCORD_GATEWAY_URL",
        )
    return None


def database_failure(exc: BaseException, url: str) -> StartupFailure | None:
    """The sentence for a database that cannot be opened, or None if exc is not one."""
    from bot.storage.migrate import MigrationLockTimeout

    parsed = make_url(url)
    names = _names(exc)
    detail = _innermost_text(exc)
    if isinstance(exc, MigrationLockTimeout):
        return StartupFailure(ExitCode.DATABASE_UNREACHABLE, str(exc))
    if parsed.get_backend_name() == "sqlite":
        path = parsed.database or ""
        if isinstance(exc, PermissionError | NotADirectoryError | FileExistsError) or (
            "unable to open database file" in detail or "readonly database" in detail
        ):
            return StartupFailure(
                ExitCode.DATABASE_PATH,
                f"The SQLite database {path!r} cannot be created or written ({detail}): make "
                "its folder writable for this user, or point DATABASE_URL elsewhere",
            )
        return None
    where = f"{parsed.host or 'localhost'}:{parsed.port or 5432}"
    if "InvalidCatalogNameError" in names:
        return StartupFailure(
            ExitCode.DATABASE_MISSING,
            f"The PostgreSQL database {parsed.database!r} does not exist on {where}: create it "
            f"(createdb {parsed.database}) or fix the name in DATABASE_URL",
        )
    if names & {"InvalidPasswordError", "InvalidAuthorizationSpecificationError"}:
        return StartupFailure(
            ExitCode.DATABASE_LOGIN,
            f"PostgreSQL on {where} refused the user {parsed.username!r} ({detail}): fix the "
            "user or password in DATABASE_URL",
        )
    if names & {"ConnectionRefusedError", "gaierror", "TimeoutError", "OSError"} or (
        "CannotConnectNowError" in names or "ConnectionDoesNotExistError" in names
    ):
        return StartupFailure(
            ExitCode.DATABASE_UNREACHABLE,
            f"PostgreSQL on {where} cannot be reached ({detail}): start it, or fix the host "
            "and port in DATABASE_URL",
        )
    return None


SUPPORTED_DATABASES = {("sqlite", "aiosqlite"), ("postgresql", "asyncpg")}


def check_database_url(url: str) -> None:
    """StartupFailure unless the URL names a database and driver Otomo supports."""
    parsed = make_url(url)
    pair = (parsed.get_backend_name(), parsed.get_driver_name())
    if pair not in SUPPORTED_DATABASES:
        raise StartupFailure(
            ExitCode.DATABASE_DRIVER,
            f"DATABASE_URL uses {parsed.drivername}, which Otomo does not support: use "
            "sqlite+aiosqlite:///data/otomo.db or postgresql+asyncpg://user:password@host/db",
        )


async def intents_hint(exc: BaseException, token: str) -> str | None:
    """For a 4014: which privileged-intent toggles are off, read from the application's flags."""
    import asyncio

    import discord

    from bot.discord_ui.application import missing_intents

    if not isinstance(exc, discord.PrivilegedIntentsRequired):
        return None
    http = discord.http.HTTPClient(asyncio.get_running_loop())
    try:
        await http.static_login(token)
        app_info: Any = await http.application_info()
        missing = missing_intents(int(app_info.get("flags") or 0))
    except Exception:
        return None
    finally:
        await http.close()
    return " and ".join(missing) or None
