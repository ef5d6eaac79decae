"""A PostgreSQL server of a test's own, to restart at will without disturbing the shared one.

`initdb` and `pg_ctl` refuse to run as root, so as root they run as the `postgres` user (through
`runuser`) in a folder that user owns. The server listens on 127.0.0.1 on a free port with trust
authentication, and is made for speed (no fsync): it holds nothing worth keeping.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

BIN = Path(os.environ.get("OTOMO_TEST_POSTGRES_BIN", "/usr/lib/postgresql/15/bin"))
SERVER_USER = "postgres"
# initdb and a first start take seconds on a loaded machine; a restart's recovery too.
START_LIMIT = 120.0


def available() -> str | None:
    """None when a private server can be made here, else why not."""
    if not (BIN / "initdb").exists():
        return f"no PostgreSQL binaries in {BIN} (set OTOMO_TEST_POSTGRES_BIN)"
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "running as root without runuser, so initdb cannot run as postgres"
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PrivatePostgres:
    """initdb + pg_ctl in a temporary folder, on a free port of 127.0.0.1."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="otomo-pg-"))
        self.data = self.folder / "data"
        self.port = _free_port()

    @property
    def url(self) -> str:
        """The bot's DATABASE_URL for this server."""
        return f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/postgres"

    async def init(self) -> None:
        """Create the cluster, configured for tests."""
        if os.geteuid() == 0:
            shutil.chown(self.folder, SERVER_USER)
        await self._run(
            str(BIN / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
        )
        settings = {
            "port": str(self.port),
            "listen_addresses": "'127.0.0.1'",
            "unix_socket_directories": f"'{self.folder}'",
            "fsync": "off",
            "synchronous_commit": "off",
            "full_page_writes": "off",
            "max_connections": "50",
            "shared_buffers": "16MB",
        }
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.writelines(f"{key} = {value}\n" for key, value in settings.items())

    async def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        await self._run(
            str(BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.folder / "log"), "-w",
            "-t", str(int(START_LIMIT)), "start",
        )  # fmt: skip

    async def stop(self, mode: str = "fast") -> None:
        """Stop the server: "fast" ends sessions cleanly, "immediate" is like a crash."""
        await self._run(str(BIN / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    async def remove(self) -> None:
        """Stop the server if it runs and delete its folder."""
        with contextlib.suppress(RuntimeError):
            await self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)

    async def _run(self, *command: str) -> None:
        if os.geteuid() == 0:
            command = ("runuser", "-u", SERVER_USER, "--", *command)
        process = await asyncio.create_subprocess_exec(
            *command,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            cwd=self.folder,
        )
        output, _ = await asyncio.wait_for(process.communicate(), START_LIMIT + 30)
        if process.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed:\n{output.decode(errors='replace')}")


@contextlib.asynccontextmanager
async def private_postgres() -> AsyncIterator[PrivatePostgres]:
    """A started server of its own, removed afterwards."""
    server = PrivatePostgres()
    try:
        await server.init()
        await server.start()
        yield server
    finally:
        await server.remove()
