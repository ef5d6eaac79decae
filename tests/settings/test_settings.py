"""Settings: defaults, .env loading, and a sentence for every bad value."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.agent.llm.provider import Patience
from bot.runtime.log import RedactSecrets
from bot.settings import SettingsError, load_settings


def test_defaults_apply_when_nothing_is_set() -> None:
    settings = load_settings(environ={}, env_file=None)

    assert settings.database_url == "sqlite+aiosqlite:///data/otomo.db"
    assert settings.bot_timezone == "Asia/Tokyo"
    assert settings.timezone.key == "Asia/Tokyo"
    assert settings.knowledge_base_dir == Path("knowledge_base")
    assert settings.log_level == "INFO"
    assert settings.discord_token is None


def test_env_file_is_read_and_the_environment_wins(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("LOG_LEVEL=debug\nBOT_TIMEZONE=Europe/London\nDEV_GUILD_ID=\n")

    settings = load_settings(environ={"BOT_TIMEZONE": "America/New_York"}, env_file=env_file)

    assert settings.log_level == "DEBUG"
    assert settings.bot_timezone == "America/New_York"
    assert settings.dev_guild_id is None


def test_missing_token_is_one_sentence_saying_what_to_do() -> None:
    settings = load_settings(environ={}, env_file=None)

    with pytest.raises(SettingsError) as caught:
        settings.require_discord_token()

    assert caught.value.problems == [
        "DISCORD_TOKEN is not set: copy .env.example to .env and paste your bot token "
        "(Discord Developer Portal → Bot → Reset Token)"
    ]


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("BOT_TIMEZONE", "Tokyo/Mars", "is not a known time zone: use an IANA name"),
        ("LLM_API_BASE", "localhost:4000", "LLM_API_BASE must be a URL starting with https://"),
        ("DISCORD_GATEWAY_URL", "http://x", "must be a URL starting with wss://"),
        ("DEV_GUILD_ID", "my-server", "DEV_GUILD_ID must be a Discord id"),
        ("APPROVER_ROLE_IDS", "1,admins", "comma-separated list of Discord ids"),
        ("DATABASE_URL", "sqlite:///x.db", "is not an async SQLAlchemy URL"),
        ("LOG_LEVEL", "LOUD", "is not a log level"),
        ("RESPOND_IN_DMS", "maybe", "RESPOND_IN_DMS must be true or false"),
        ("AGENT_MAX_STEPS", "0", "AGENT_MAX_STEPS"),
        ("TIPS_QUIET_HOURS", "night", "TIPS_QUIET_HOURS 'night' must be a range"),
        ("LOG_FORMAT", "xml", "LOG_FORMAT 'xml' is not a log format: use text"),
        ("LLM_CHECK_ON_START", "maybe", "LLM_CHECK_ON_START must be true or false"),
        ("HEALTH_PORT", "99999", "HEALTH_PORT"),
        ("DEFAULT_LANGUAGE", "de", "use ja (Japanese) or en (English)"),
        ("THREAD_CONVERSATIONS", "always", "use off"),
    ],
)
def test_each_bad_value_is_a_sentence_naming_the_setting(name: str, value: str, words: str) -> None:
    with pytest.raises(SettingsError) as caught:
        load_settings(environ={name: value}, env_file=None)

    assert len(caught.value.problems) == 1
    problem = caught.value.problems[0]
    assert words in problem
    assert name in problem
    assert "Traceback" not in problem and "pydantic" not in problem


def test_the_language_and_thread_settings_read_any_case() -> None:
    settings = load_settings(
        environ={"DEFAULT_LANGUAGE": " EN ", "THREAD_CONVERSATIONS": "Answer"}, env_file=None
    )

    assert (settings.default_language, settings.thread_conversations) == ("en", "answer")
    defaults = load_settings(environ={}, env_file=None)
    assert (defaults.default_language, defaults.thread_conversations) == ("ja", "off")


def test_several_problems_are_all_reported() -> None:
    with pytest.raises(SettingsError) as caught:
        load_settings(environ={"BOT_TIMEZONE": "x", "LOG_LEVEL": "y"}, env_file=None)

    assert len(caught.value.problems) == 2


def test_secrets_never_appear_in_repr() -> None:
    settings = load_settings(
        environ={
            "DISCORD_TOKEN": "tok-SECRET-123",
            "LLM_API_KEY": "sk-SECRET-456",
            "TAVILY_API_KEY": "tvly-SECRET-789",
        },
        env_file=None,
    )

    shown = repr(settings) + str(settings) + settings.model_dump_json()
    assert "SECRET" not in shown
    assert settings.require_discord_token() == "tok-SECRET-123"


def test_log_lines_are_scrubbed_of_secrets() -> None:
    record = logging.LogRecord(
        "x", logging.INFO, __file__, 1, "token is %s", ("tok-SECRET-123",), None
    )

    RedactSecrets(["tok-SECRET-123"]).filter(record)

    assert record.getMessage() == "token is [redacted]"


def test_env_example_documents_every_setting_and_loads() -> None:
    from dotenv import dotenv_values

    from bot.app.features import SETTINGS_SECTIONS
    from bot.settings import setting_names

    example = Path(__file__).resolve().parents[2] / ".env.example"
    documented = set(dotenv_values(example))

    assert documented == setting_names(SETTINGS_SECTIONS)
    loaded = load_settings(environ={}, env_file=example, sections=SETTINGS_SECTIONS)
    assert loaded.llm_model == "openai/gpt-4o-mini"
    lines = example.read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        if line and not line.startswith("#"):
            assert lines[index - 1].startswith("#") or lines[index - 1].split("=")[0].isupper(), (
                f"{line} needs a comment"
            )


async def test_an_older_env_with_a_long_timeout_still_starts_and_its_tries_fit_the_round() -> None:
    # LLM_TIMEOUT_SECONDS=60 was the default before rounds had a deadline: it must still load,
    # and a retry only gets what is left of the 90 s round a member waits for.
    settings = load_settings(
        environ={"LLM_TIMEOUT_SECONDS": "60", "LLM_NUM_RETRIES": "2"}, env_file=None
    )
    patience = Patience.start(settings)

    first = patience.next_try()
    patience.deadline -= first  # as if the first try used all of its time
    second = patience.next_try()

    assert first == 60
    assert second == pytest.approx(30, abs=1)
