"""`python -m bot run` as a real process: it answers a mention, and bad settings exit 2."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from bot.app.start_failures import ExitCode
from tests.e2e.harness import bot_environment
from tests.fakes.discord_server import GENERAL_CHANNEL_ID, HANA_ID, FakeDiscord
from tests.fakes.llm_server import ScriptedLLM, text
from tests.fakes.netguard import blocked_lines, child_env

pytestmark = pytest.mark.e2e

PROJECT = Path(__file__).resolve().parents[2]


def _environment(extra: dict[str, str]) -> dict[str, str]:
    """A clean environment (no developer .env) plus the network guard."""
    base = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG", "TMPDIR"}}
    base.update(extra)
    return child_env(base)


async def _run_bot(cwd: Path, env: dict[str, str]) -> asyncio.subprocess.Process:
    """`python -m bot run` as `make run` starts it, with its output piped."""
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "run",
        cwd=cwd,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def test_the_bot_process_answers_a_mention_as_a_reply(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, blank_database_url: str
) -> None:
    llm.queue(text("プロセスから返事です"))
    env = _environment(bot_environment(fake, llm, tmp_path, DATABASE_URL=blank_database_url))
    process = await _run_bot(tmp_path, env)
    try:
        await fake.wait_for_gateway_ready(timeout=60)
        sent = await fake.send_user_message(
            GENERAL_CHANNEL_ID,
            HANA_ID,
            "<@BOT> 元気？".replace("BOT", str(fake.world.bot.id)),
            mention_bot=True,
        )
        reply = await fake.wait_for_message(
            GENERAL_CHANNEL_ID,
            lambda m: m["content"] == "プロセスから返事です",
            after=int(sent["id"]),
            timeout=30,
        )
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr_bytes = await asyncio.wait_for(process.communicate(), 30)
    stderr = stderr_bytes.decode()

    assert reply["message_reference"]["message_id"] == sent["id"]
    allowed = reply["allowed_mentions"]
    assert allowed["parse"] == [] and allowed.get("roles", []) == []
    assert process.returncode == 0, stderr[-2000:]
    assert blocked_lines(stderr) == []
    assert "Running upgrade" in stderr  # migrations were applied at start
    assert "fake-bot-token" not in stderr and "test-key" not in stderr
    assert "Otomo stopped" in stderr
    # Slash commands appear without DEV_GUILD_ID (globally), and the invite link is logged.
    assert {"otomo", "remind", "timezone"} <= {c["name"] for c in fake.commands()}
    assert "slash commands globally" in stderr
    invite = f"Invite Otomo to a server: https://discord.com/oauth2/authorize?client_id={fake.world.bot.id}"
    assert invite in stderr
    # Ready means warm: the model client's import overlaps the connection but ends before it.
    assert stderr.index("Model client and tokenizer loaded") < stderr.index("Otomo is ready")
    assert "Slow event-loop step:" not in stderr  # the watchdog the harness turns on


async def test_a_model_client_that_cannot_load_stops_the_bot_with_a_sentence(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    broken = tmp_path / "broken" / "litellm"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text('raise ImportError("planted: litellm is broken")\n')
    env = _environment(bot_environment(fake, llm, tmp_path, PYTHONPATH=str(broken.parent)))
    process = await _run_bot(tmp_path, env)
    _, stderr_bytes = await asyncio.wait_for(process.communicate(), 120)
    stderr = stderr_bytes.decode()

    assert process.returncode == ExitCode.MODEL_CLIENT == 42, stderr[-2000:]
    assert (
        "Otomo could not start: the model client (litellm) could not be loaded: "
        "ImportError: planted: litellm is broken"
    ) in stderr
    assert "Otomo is ready" not in stderr
    assert "Otomo stopped" in stderr


@pytest.mark.parametrize(
    ("environment", "sentence"),
    [
        ({}, "DISCORD_TOKEN is not set: copy .env.example to .env and paste your bot token"),
        (
            {"DISCORD_TOKEN": "x", "BOT_TIMEZONE": "Mars/Olympus"},
            "BOT_TIMEZONE 'Mars/Olympus' is not a known time zone",
        ),
        (
            {"DISCORD_TOKEN": "x", "LLM_API_BASE": "not a url"},
            "LLM_API_BASE must be a URL starting with https://",
        ),
        (
            {"DISCORD_TOKEN": "x", "DATABASE_URL": "postgresql://otomo:hunter2@db/otomo"},
            "DATABASE_URL 'postgresql://otomo:***@db/otomo' is not an async SQLAlchemy URL",
        ),
    ],
)
async def test_bad_settings_exit_2_with_a_sentence_not_a_traceback(
    tmp_path: Path, environment: dict[str, str], sentence: str
) -> None:
    process = await _run_bot(tmp_path, _environment(environment))
    stdout, stderr = await asyncio.wait_for(process.communicate(), 60)

    assert process.returncode == 2
    message = stderr.decode()
    assert sentence in message
    assert "Traceback" not in message
    assert "hunter2" not in message  # a password is never echoed
    assert len(message.strip().splitlines()) == 1
    assert stdout == b""
