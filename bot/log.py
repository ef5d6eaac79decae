"""Logging in discord.py's format, with secrets scrubbed from every record."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable

# Same layout as discord.utils.setup_logging, so our lines and discord.py's read alike.
LOG_FORMAT = "[{asctime}] [{levelname:<8}] {name}: {message}"
DATE_FORMAT = "%Y-%m-%d %H:%M:%S"

# Libraries that are chatty at INFO and tell an operator nothing useful.
QUIET_LOGGERS = (
    "LiteLLM",
    "LiteLLM Router",
    "LiteLLM Proxy",
    "httpx",
    "apscheduler.scheduler",
    "alembic.runtime.plugins",
)


class RedactSecrets(logging.Filter):
    """Replace known secret values anywhere in a formatted log message."""

    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__()
        self._secrets = [s for s in secrets if len(s) >= 6]

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's message if it contains a secret; never drop the record."""
        if not self._secrets:
            return True
        message = record.getMessage()
        redacted = message
        for secret in self._secrets:
            redacted = redacted.replace(secret, "[redacted]")
        if redacted != message:
            record.msg, record.args = redacted, None
        return True


def setup_logging(level: str, secrets: Iterable[str] = ()) -> None:
    """Send every logger to stderr at level, in discord.py's format, without secrets."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(LOG_FORMAT, DATE_FORMAT, style="{"))
    handler.addFilter(RedactSecrets(secrets))
    root = logging.getLogger()
    for existing in list(root.handlers):
        root.removeHandler(existing)
    root.addHandler(handler)
    root.setLevel(level)
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.WARNING, logging.getLevelName(level)))
