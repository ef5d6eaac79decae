"""Secrets out of every text that leaves the process: log lines, tracebacks, stored errors.

Three nets, widest last: the configured secret values (every SecretStr setting and the database
password), URL passwords (`postgresql://otomo:hunter2@db` → `postgresql://otomo:***@db`), and
the shapes of well-known credentials (a Discord bot token, `sk-…` and `tvly-…` keys, a bearer
token), so that even a secret the bot was never told about is caught.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable

REDACTED = "[redacted]"
MASK = "***"
# Shorter values are too likely to appear in ordinary text (and too weak to be real secrets).
MIN_SECRET_CHARS = 6

_URL_PASSWORD = re.compile(r"(?P<head>\b[a-z][a-z0-9+.-]*://[^\s:/@?#]*):(?P<password>[^\s@/?#]+)@")
_KNOWN_SHAPES = re.compile(
    r"\b(?:"
    r"[MN][A-Za-z\d_-]{23,27}\.[\w-]{6}\.[\w-]{27,40}"  # Discord bot token
    r"|sk-[A-Za-z0-9_-]{16,}"  # OpenAI-style API key (also sk-ant-…, sk-proj-…)
    r"|tvly-[A-Za-z0-9_-]{16,}"  # Tavily API key
    r")"
)
_BEARER = re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]{8,}")

_lock = threading.Lock()
_secrets: frozenset[str] = frozenset()


def remember_secrets(values: Iterable[str | None]) -> None:
    """Add values that must never be shown (called with the settings' secrets at start-up)."""
    global _secrets
    fresh = {v.strip() for v in values if v and len(v.strip()) >= MIN_SECRET_CHARS}
    with _lock:
        _secrets = _secrets | fresh


def forget_secrets() -> None:
    """Drop every remembered value (tests that plant their own)."""
    global _secrets
    with _lock:
        _secrets = frozenset()


def mask_url_password(text: str) -> str:
    """Every `scheme://user:password@host` in text with the password replaced by ***."""
    return _URL_PASSWORD.sub(lambda m: f"{m['head']}:{MASK}@", text)


def redact(text: str) -> str:
    """text without any remembered secret, URL password or credential-shaped string."""
    if not text:
        return text
    # Longest first, so a secret that contains another is replaced whole.
    for secret in sorted(_secrets, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, REDACTED)
    text = mask_url_password(text)
    text = _KNOWN_SHAPES.sub(REDACTED, text)
    return _BEARER.sub(lambda m: f"{m[1]}{REDACTED}", text)
