"""Clean shutdown on SIGTERM / SIGINT for the running bot."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable

log = logging.getLogger(__name__)


def stop_on_signals(close: Callable[[], object]) -> Callable[[], None]:
    """Close the bot cleanly on SIGTERM/SIGINT; return a function that removes the handlers."""
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    pending: set[asyncio.Task[object]] = set()

    def request_close() -> None:
        log.info("Shutting down…")
        result = close()
        if asyncio.iscoroutine(result):
            task = loop.create_task(result)
            pending.add(task)
            task.add_done_callback(pending.discard)

    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, request_close)
        except (NotImplementedError, RuntimeError):
            # Event loops without signal support (Windows): Ctrl-C then arrives as
            # KeyboardInterrupt, which `python -m bot` turns into a clean exit.
            log.debug("Signal %s cannot be handled by this event loop", sig.name)
            continue
        installed.append(sig)

    def remove() -> None:
        for sig in installed:
            loop.remove_signal_handler(sig)

    return remove
