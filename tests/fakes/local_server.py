"""The base of every fake service: an aiohttp app on a free port of 127.0.0.1.

A fake names its routes in ``_app()``; this class starts and stops the server, serves as
``async with``, and tells the ``url``. Handlers that hang on purpose wait on ``_closing``, which
``close()`` sets first so that shutting down never waits for them.
"""

from __future__ import annotations

import asyncio
import socket
from abc import ABC, abstractmethod
from types import TracebackType
from typing import Self

from aiohttp import web


class LocalServer(ABC):
    """An aiohttp server on 127.0.0.1 and a random port; ``async with`` starts and closes it."""

    # Seconds close() gives running handlers, so it never waits long for a client that stays.
    shutdown_timeout = 1.0

    def __init__(self) -> None:
        self._closing = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self._port = 0

    @abstractmethod
    def _app(self) -> web.Application:
        """The application with this fake's routes."""

    async def start(self) -> None:
        """Listen on a free port of 127.0.0.1."""
        self._runner = web.AppRunner(
            self._app(), access_log=None, shutdown_timeout=self.shutdown_timeout
        )
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        self._port = self._runner.addresses[0][1]

    async def close(self) -> None:
        """Stop the server, releasing any request that waits on ``_closing`` first."""
        self._closing.set()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def url(self) -> str:
        """The server root, ``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self._port}"


def free_port() -> int:
    """A port of 127.0.0.1 that nothing listens on right now (for a server a test starts later)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
