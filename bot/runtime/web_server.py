"""A small aiohttp server inside the bot's process: the health port and the tools API.

Each listens on its own host and port, without an access log, and stops with the bot.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from aiohttp import web


class WebServer(ABC):
    """An aiohttp application on host:port; a subclass says what it serves (`app`)."""

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self._runner: web.AppRunner | None = None

    @abstractmethod
    def app(self) -> web.Application:
        """The web application (also used directly by tests)."""

    async def listen(self) -> None:
        """Listen on host:port; a taken port raises its OSError with nothing left open."""
        runner = web.AppRunner(self.app(), access_log=None)
        await runner.setup()
        try:
            await web.TCPSite(runner, self.host, self.port).start()
        except OSError:
            await runner.cleanup()
            raise
        self._runner = runner

    async def stop(self) -> None:
        """Stop listening."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
