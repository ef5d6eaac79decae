"""Secrets never reach a log line, a traceback, a settings error, a tool result or the console."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from bot.agent.tools import ToolContext, execute, tool
from bot.app.console import Console
from bot.runtime.log import setup_logging
from bot.runtime.redaction import forget_secrets, redact, remember_secrets
from bot.settings import SettingsError, load_settings

DISCORD_TOKEN = "MTA5ODc2NTQzMjEwOTg3NjU0.GhIjKl.abcdefghijklmnopqrstuvwxyz0123456789AB"
LLM_KEY = "sk-plantedllmkey0123456789abcdef"
TAVILY_KEY = "tvly-plantedtavilykey0123456789"
DB_PASSWORD = "hunter2-db-password"
DATABASE_URL = f"postgresql+asyncpg://otomo:{DB_PASSWORD}@db.internal/otomo"
PLANTED = (DISCORD_TOKEN, LLM_KEY, TAVILY_KEY, DB_PASSWORD)


@pytest.fixture(autouse=True)
def planted_settings() -> Iterator[None]:
    """Secrets remembered the way start-up remembers them, forgotten afterwards."""
    settings = load_settings(
        environ={
            "DISCORD_TOKEN": DISCORD_TOKEN,
            "LLM_API_KEY": LLM_KEY,
            "TAVILY_API_KEY": TAVILY_KEY,
            "DATABASE_URL": DATABASE_URL,
        },
        env_file=None,
    )
    remember_secrets(settings.secret_values())
    yield
    forget_secrets()


def assert_clean(text: str) -> None:
    for secret in PLANTED:
        assert secret not in text


def test_remembered_secrets_url_passwords_and_key_shapes_are_redacted() -> None:
    forget_secrets()  # even unknown secrets are caught by their shape
    text = redact(
        f"token={DISCORD_TOKEN} key={LLM_KEY} tavily={TAVILY_KEY} url={DATABASE_URL} "
        "Authorization: Bearer abcdef0123456789"
    )

    assert_clean(text)
    assert "postgresql+asyncpg://otomo:***@db.internal/otomo" in text
    assert "Bearer [redacted]" in text


def test_a_traceback_with_a_key_inside_the_exception_is_scrubbed_on_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = logging.getLogger()
    saved_handlers, saved_level = list(root.handlers), root.level
    try:
        setup_logging("INFO", [])
        try:
            raise RuntimeError(f"provider said: bad key {LLM_KEY} for {DATABASE_URL}")
        except RuntimeError:
            logging.getLogger("bot.test").exception("the call failed with token %s", DISCORD_TOKEN)
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in saved_handlers:
            root.addHandler(handler)
        root.setLevel(saved_level)
    stderr = capsys.readouterr().err

    assert "Traceback" in stderr and "RuntimeError: provider said: bad key" in stderr
    assert_clean(stderr)
    assert "otomo:***@db.internal" in stderr


def test_a_bad_database_url_is_reported_without_its_password() -> None:
    with pytest.raises(SettingsError) as raised:
        load_settings(
            environ={"DATABASE_URL": f"postgresql://otomo:{DB_PASSWORD}@db/otomo"}, env_file=None
        )

    [sentence] = raised.value.problems
    assert "DATABASE_URL 'postgresql://otomo:***@db/otomo' is not an async SQLAlchemy URL" in (
        sentence
    )
    assert DB_PASSWORD not in sentence


async def test_an_error_a_tool_raises_reaches_the_model_without_the_secret_in_it() -> None:
    @tool(requires_approval=False)
    async def leaky(ctx: ToolContext) -> str:
        """A tool whose library puts the key in its error."""
        raise ConnectionError(f"GET https://api.example.com/?key={TAVILY_KEY} failed")

    context: Any = None
    outcome = await execute(leaky, context, {})

    assert outcome.is_error
    assert "ConnectionError" in str(outcome.output)
    assert_clean(str(outcome.output))


def test_the_console_never_prints_a_secret() -> None:
    out = io.StringIO()
    nobody: Any = None
    console = Console(nobody, nobody, stdout=out)

    console._write(f"⚠️ web_search: unauthorized for key {TAVILY_KEY}\n")

    assert "web_search: unauthorized for key [redacted]" in out.getvalue()
