"""Refuse every connection beyond this machine, so no test can reach the internet.

``install()`` patches ``socket.socket`` (which asyncio, aiohttp, httpx, urllib and ssl all go
through) so that connecting to anything but loopback raises :class:`NetworkBlocked` before the
kernel sees the call, and records the attempt so a test fails even when the code under test
swallowed the exception. It also refuses to resolve host names other than this machine's:
offline, a lookup fails with a DNS error before any connect and would otherwise go unnoticed.

Standard library only: ``sitecustomize_guard/sitecustomize.py`` loads this file by path to guard
child processes too.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Child processes print this on stderr for each blocked attempt; tests grep for it.
MARKER = "NETGUARD-BLOCKED"
# Set to "1" in a child's environment (with SITECUSTOMIZE_DIR on PYTHONPATH) to guard it.
ENV_VAR = "OTOMO_NETGUARD"
SITECUSTOMIZE_DIR = Path(__file__).resolve().parent / "sitecustomize_guard"

_IP_FAMILIES = {socket.AF_INET, socket.AF_INET6}
_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}


class NetworkBlocked(RuntimeError):
    """A test tried to reach a non-loopback address."""


@dataclass(frozen=True)
class BlockedAttempt:
    """One refused connection or name lookup."""

    operation: str  # "connect", "connect_ex", "sendto" or "getaddrinfo"
    address: Any

    def __str__(self) -> str:
        if self.operation == "getaddrinfo":
            return f"name lookup of {self.address[0]!r}"
        return f"{self.operation} to {self.address!r}"


Reporter = Callable[[BlockedAttempt], None]

# The unpatched functions, looked up at call time so a test can spy on them.
_ORIGINALS: dict[str, Any] = {}
# Patched names the owner only inherited (socket.socket's come from _socket.socket): deleted, not
# reassigned, on uninstall so the class is exactly as before.
_INHERITED: set[str] = set()
_attempts: list[BlockedAttempt] = []
_reporter: Reporter | None = None


def is_loopback_host(host: object) -> bool:
    """Return whether ``host`` (name or literal address) stays on this machine."""
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    if host.lower() in _LOCAL_NAMES or host.lower().endswith(".localhost"):
        return True
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])  # drop an IPv6 zone ("fe80::1%eth0")
    except ValueError:
        return False  # any other name: connect() would resolve it, and DNS is network too
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def _address_allowed(family: int, address: object) -> bool:
    # AF_UNIX paths and other non-IP families (netlink…) never leave the machine.
    if family not in _IP_FAMILIES:
        return True
    host = address[0] if isinstance(address, tuple) and address else address
    return is_loopback_host(host)


def _block(operation: str, address: object) -> NetworkBlocked:
    attempt = BlockedAttempt(operation, address)
    _attempts.append(attempt)
    if _reporter is not None:
        _reporter(attempt)
    return NetworkBlocked(
        f"netguard: tests may only reach 127.0.0.1/::1, refused {attempt}. "
        "Point the client at a fake server on 127.0.0.1 (every service has a base URL setting)."
    )


def _connect(self: socket.socket, address: Any) -> None:
    if not _address_allowed(self.family, address):
        raise _block("connect", address)
    _ORIGINALS["connect"](self, address)


def _connect_ex(self: socket.socket, address: Any) -> int:
    if not _address_allowed(self.family, address):
        raise _block("connect_ex", address)
    result: int = _ORIGINALS["connect_ex"](self, address)
    return result


def _sendto(self: socket.socket, data: Any, *flags_and_address: Any) -> int:
    # sendto(data, address) or sendto(data, flags, address): UDP needs no connect to leave.
    address = flags_and_address[-1] if flags_and_address else None
    if not _address_allowed(self.family, address):
        raise _block("sendto", address)
    sent: int = _ORIGINALS["sendto"](self, data, *flags_and_address)
    return sent


def _getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
    if host is not None and not _resolvable(host):
        raise _block("getaddrinfo", (host, port))
    return _ORIGINALS["getaddrinfo"](host, port, *args, **kwargs)


def _resolvable(host: object) -> bool:
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str) or host == "" or is_loopback_host(host):
        return True
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
        return True  # a literal resolves without DNS; connect() judges the address itself
    except ValueError:
        pass
    # This machine's own name resolves from /etc/hosts; some libraries look it up.
    return host.lower() == socket.gethostname().lower()


_PATCHES: dict[str, tuple[Any, str, Any]] = {
    "connect": (socket.socket, "connect", _connect),
    "connect_ex": (socket.socket, "connect_ex", _connect_ex),
    "sendto": (socket.socket, "sendto", _sendto),
    "getaddrinfo": (socket, "getaddrinfo", _getaddrinfo),
}


def install(reporter: Reporter | None = None) -> None:
    """Start refusing non-loopback connections (idempotent); ``reporter`` hears each refusal."""
    global _reporter
    if reporter is not None:
        _reporter = reporter
    if is_installed():
        return
    for name, (owner, attribute, replacement) in _PATCHES.items():
        _ORIGINALS[name] = getattr(owner, attribute)
        if attribute not in vars(owner):
            _INHERITED.add(name)
        setattr(owner, attribute, replacement)


def uninstall() -> None:
    """Restore the real socket functions (idempotent)."""
    global _reporter
    for name, (owner, attribute, _replacement) in _PATCHES.items():
        if name not in _ORIGINALS:
            continue
        original = _ORIGINALS.pop(name)
        if name in _INHERITED:
            delattr(owner, attribute)
            _INHERITED.discard(name)
        else:
            setattr(owner, attribute, original)
    _reporter = None


def is_installed() -> bool:
    """Return whether the guard is active."""
    return socket.socket.connect is _connect


def attempts() -> list[BlockedAttempt]:
    """Return the attempts refused since the last ``take_attempts()``."""
    return list(_attempts)


def take_attempts() -> list[BlockedAttempt]:
    """Return the refused attempts and forget them."""
    taken = list(_attempts)
    _attempts.clear()
    return taken


@contextmanager
def expect_blocked() -> Iterator[list[BlockedAttempt]]:
    """Let the body make refused attempts on purpose; fail if it made none."""
    before = len(_attempts)
    seen: list[BlockedAttempt] = []
    try:
        yield seen
    finally:
        seen.extend(_attempts[before:])
        del _attempts[before:]
    if not seen:
        raise AssertionError("netguard: expected a blocked network attempt, none happened")


def child_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """Return an environment that guards a child ``python`` process (see sitecustomize_guard)."""
    env = dict(os.environ if base is None else base)
    paths = [str(SITECUSTOMIZE_DIR), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env[ENV_VAR] = "1"
    return env


def blocked_lines(stderr: str) -> list[str]:
    """Return the lines a guarded child printed for refused attempts."""
    return [line for line in stderr.splitlines() if MARKER in line]


def report_to_stderr(attempt: BlockedAttempt) -> None:
    """Print a refused attempt with the fixed marker, for a parent test to find."""
    print(f"{MARKER} pid={os.getpid()} {attempt}", file=sys.stderr, flush=True)
