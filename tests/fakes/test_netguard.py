"""The network guard refuses everything but loopback, in this process and in child processes."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import socket
import sys
import textwrap
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from tests.fakes import netguard
from tests.fakes.netguard import BlockedAttempt, NetworkBlocked

# Gives this module the `pytester` fixture, used to run the plugin in an inner session.
pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[2]
# TEST-NET-1 and a private address: never routed, so even a leak could not reach anyone.
TEST_NET = ("192.0.2.1", 9)
PRIVATE = ("10.255.255.1", 9)


@pytest.fixture
def guard() -> Iterator[None]:
    """Install the guard for one test and restore whatever state it was in before."""
    was_installed = netguard.is_installed()
    netguard.install()
    yield
    if not was_installed:
        netguard.uninstall()


@pytest.fixture
def kernel_connects(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Record every call that would reach the real ``socket.connect``/``connect_ex``."""
    calls: list[Any] = []
    for name in ("connect", "connect_ex"):
        real = netguard._ORIGINALS[name]

        def spy(sock: socket.socket, address: Any, real: Any = real) -> Any:
            calls.append(address)
            return real(sock, address)

        monkeypatch.setitem(netguard._ORIGINALS, name, spy)
    return calls


@pytest.fixture
async def local_server(guard: None) -> AsyncIterator[str]:
    """An HTTP server on 127.0.0.1 that answers "pong"."""
    app = web.Application()
    app.router.add_get("/ping", lambda request: _pong())
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    yield f"http://127.0.0.1:{runner.addresses[0][1]}"
    await runner.cleanup()


async def _pong() -> web.Response:
    return web.Response(text="pong")


def test_connect_to_test_net_is_refused_without_calling_the_kernel(
    guard: None, kernel_connects: list[Any]
) -> None:
    with socket.socket() as sock, netguard.expect_blocked() as refused:
        sock.settimeout(5)  # were the connect attempted, it would hang, not raise at once
        started = time.monotonic()
        with pytest.raises(NetworkBlocked, match=r"192\.0\.2\.1"):
            sock.connect(TEST_NET)
        elapsed = time.monotonic() - started
        with pytest.raises(OSError) as not_connected:
            sock.getpeername()

    assert kernel_connects == []
    assert elapsed < 0.5
    assert not_connected.value.errno == errno.ENOTCONN
    assert refused == [BlockedAttempt("connect", TEST_NET)]


def test_connect_ex_to_a_private_address_is_refused(
    guard: None, kernel_connects: list[Any]
) -> None:
    with socket.socket() as sock, netguard.expect_blocked() as refused:
        sock.setblocking(False)
        with pytest.raises(NetworkBlocked, match=r"10\.255\.255\.1"):
            sock.connect_ex(PRIVATE)

    assert kernel_connects == []
    assert refused == [BlockedAttempt("connect_ex", PRIVATE)]


def test_a_swallowed_refusal_is_still_recorded(guard: None) -> None:
    # The suppress stands for careless product code that hides the error.
    with netguard.expect_blocked() as refused, contextlib.suppress(Exception):
        socket.create_connection(TEST_NET, timeout=5)

    assert [a.address for a in refused] == [TEST_NET]


def test_udp_datagrams_to_the_outside_are_refused(guard: None) -> None:
    with (
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock,
        netguard.expect_blocked() as refused,
        pytest.raises(NetworkBlocked),
    ):
        sock.sendto(b"x", ("192.0.2.53", 53))

    assert refused == [BlockedAttempt("sendto", ("192.0.2.53", 53))]


def test_looking_up_a_public_name_is_refused(guard: None) -> None:
    with netguard.expect_blocked() as refused, pytest.raises(NetworkBlocked, match=r"example\.com"):
        socket.getaddrinfo("example.com", 443)

    assert str(refused[0]) == "name lookup of 'example.com'"


async def test_asyncio_open_connection_to_the_outside_is_refused(
    guard: None, kernel_connects: list[Any]
) -> None:
    with netguard.expect_blocked() as refused, pytest.raises(NetworkBlocked):
        await asyncio.wait_for(asyncio.open_connection(*TEST_NET), timeout=5)

    assert kernel_connects == []
    assert refused == [BlockedAttempt("connect", TEST_NET)]


async def test_aiohttp_to_the_outside_raises_unwrapped(guard: None) -> None:
    # NetworkBlocked is no OSError, so aiohttp does not turn it into a ClientConnectorError.
    async with aiohttp.ClientSession() as session:
        with netguard.expect_blocked(), pytest.raises(NetworkBlocked):
            await session.get("http://192.0.2.1:9/")
        with netguard.expect_blocked(), pytest.raises(NetworkBlocked):
            await session.get("https://api.openai.com/v1/models")


async def test_loopback_connections_work(local_server: str, kernel_connects: list[Any]) -> None:
    port = int(local_server.rsplit(":", 1)[1])
    async with aiohttp.ClientSession() as session:
        for base in (local_server, f"http://localhost:{port}"):
            async with session.get(f"{base}/ping") as response:
                assert await response.text() == "pong"
    _reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.close()
    await writer.wait_closed()

    assert kernel_connects  # the real connect ran
    assert netguard.attempts() == []


def test_ipv6_loopback_and_unix_sockets_work(guard: None, tmp_path: Path) -> None:
    if socket.has_ipv6:
        try:
            server6 = socket.create_server(("::1", 0), family=socket.AF_INET6)
        except OSError:
            server6 = None  # no IPv6 on this host
        if server6 is not None:
            with server6, socket.create_connection(server6.getsockname()[:2], timeout=1):
                pass
    path = str(tmp_path / "s.sock")
    with socket.socket(socket.AF_UNIX) as server, socket.socket(socket.AF_UNIX) as client:
        server.bind(path)
        server.listen()
        client.connect(path)

    assert netguard.attempts() == []


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("127.0.0.1", True),
        ("127.10.20.30", True),
        ("::1", True),
        ("::ffff:127.0.0.1", True),
        ("localhost", True),
        (b"127.0.0.1", True),
        ("0.0.0.0", False),
        ("192.0.2.1", False),
        ("10.255.255.1", False),
        ("2001:db8::1", False),
        ("::ffff:192.0.2.1", False),
        ("example.com", False),
    ],
)
def test_only_loopback_hosts_are_allowed(host: str | bytes, allowed: bool) -> None:
    assert netguard.is_loopback_host(host) is allowed


def test_uninstall_restores_the_real_socket_functions() -> None:
    was_installed = netguard.is_installed()
    netguard.install()
    netguard.uninstall()
    try:
        assert not netguard.is_installed()
        assert "connect" not in vars(socket.socket)  # inherited from _socket.socket again
        assert socket.socket.connect is socket.SocketType.connect
        assert socket.getaddrinfo.__module__ == "socket"
    finally:
        if was_installed:
            netguard.install()


def test_expect_blocked_fails_when_nothing_was_refused(guard: None) -> None:
    with (
        pytest.raises(AssertionError, match="expected a blocked network attempt"),
        netguard.expect_blocked(),
    ):
        pass


CHILD = textwrap.dedent(
    """
    import socket, sys
    try:
        socket.create_connection(("192.0.2.1", 9), timeout=5)
    except Exception as exc:
        print("swallowed", type(exc).__name__)
    with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5):
        print("loopback ok")
    """
)


async def _run_child(env: dict[str, str], port: int) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        CHILD,
        str(port),
        env=env,
        cwd="/",  # not the repository: the guard must not depend on it being importable
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=30)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_a_guarded_child_process_reports_refusals_on_stderr(local_server: str) -> None:
    port = int(local_server.rsplit(":", 1)[1])

    code, out, err = await _run_child(netguard.child_env(), port)

    assert code == 0, err
    assert out.splitlines() == ["swallowed NetworkBlocked", "loopback ok"]
    [line] = netguard.blocked_lines(err)
    assert line.startswith(netguard.MARKER) and "('192.0.2.1', 9)" in line


async def test_a_child_without_the_env_var_is_not_guarded(local_server: str) -> None:
    env = netguard.child_env()
    env[netguard.ENV_VAR] = "0"
    probe = "import socket; print(socket.socket.connect is socket.SocketType.connect)"

    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", probe, env=env, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await asyncio.wait_for(process.communicate(), timeout=30)

    assert out.decode().strip() == "True"


def test_the_plugin_fails_a_test_that_swallowed_a_refusal(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(
        test_inner="""
        import socket
        from tests.fakes import netguard

        def test_swallows():
            try:
                socket.create_connection(("192.0.2.1", 9), timeout=5)
            except Exception:
                pass

        def test_refusal_on_purpose():
            with netguard.expect_blocked():
                try:
                    socket.create_connection(("192.0.2.1", 9), timeout=5)
                except Exception:
                    pass

        def test_loopback_only():
            with socket.socket() as server:
                server.bind(("127.0.0.1", 0))
                server.listen()
                socket.create_connection(server.getsockname(), timeout=5).close()
        """
    )
    # A separate process: the plugin installs and uninstalls the guard around its session.
    monkeypatch.setenv("PYTHONPATH", str(REPO))

    result = pytester.runpytest_subprocess(
        "-p", "tests.fakes.netguard_plugin", "-p", "no:cacheprovider"
    )

    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(["*network access outside 127.0.0.1 was attempted*"])
