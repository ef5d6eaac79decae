"""Logging in discord.py's format (or JSON lines), with secrets scrubbed from every record."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterable
from datetime import UTC, datetime

from bot.runtime.redaction import redact, remember_secrets

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
    # "Running job … executed successfully" for every run: every few seconds for the refresh
    # of server settings and every minute for the scheduled posts.
    "apscheduler.executors.default",
    "alembic.runtime.plugins",
)


class RedactSecrets(logging.Filter):
    """Scrub secrets from a record before any handler sees it: its message and its traceback."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        remember_secrets(secrets)

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's message and traceback text if needed; never drop the record."""
        message = record.getMessage()
        redacted = redact(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        if record.exc_info and not record.exc_text:
            # Formatted once here, so every handler prints the scrubbed text (a key inside an
            # exception's message or a local URL would otherwise reach stderr).
            record.exc_text = _TRACEBACKS.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


class RedactingFormatter(logging.Formatter):
    """The last net: the finished line is scrubbed too (a secret split across fields)."""

    def format(self, record: logging.LogRecord) -> str:
        """The formatted line without secrets."""
        return redact(super().format(record))


class JsonLinesFormatter(logging.Formatter):
    """One JSON object a line (time, level, logger, message, traceback) for log collectors."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as a JSON line, without secrets."""
        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": redact(record.getMessage()),
        }
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            entry["traceback"] = redact(record.exc_text)
        return json.dumps(entry, ensure_ascii=False)


_TRACEBACKS = logging.Formatter()


def formatter(log_format: str = "text") -> logging.Formatter:
    """The formatter for LOG_FORMAT: discord.py's layout, or JSON lines."""
    if log_format == "json":
        return JsonLinesFormatter()
    return RedactingFormatter(LOG_FORMAT, DATE_FORMAT, style="{")


def setup_logging(
    level: str,
    secrets: Iterable[str] = (),
    log_format: str = "text",
    handler: logging.Handler | None = None,
) -> None:
    """Send every logger to stderr (or handler) at level, without secrets."""
    handler = handler or logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter(log_format))
    handler.addFilter(RedactSecrets(secrets))
    root = logging.getLogger()
    for existing in list(root.handlers):
        root.removeHandler(existing)
    root.addHandler(handler)
    root.setLevel(level)
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.WARNING, logging.getLevelName(level)))
