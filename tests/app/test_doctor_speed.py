"""`doctor` times a prompt of the real size and says which waits to raise for a slow model."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.app.doctor import run_doctor
from bot.settings import Settings
from tests.fakes.discord_server import FakeDiscord
from tests.fakes.llm_server import ChatRequest, Reply, ScriptedLLM, delay, text

pytestmark = pytest.mark.e2e

Build = Callable[..., Settings]
# How long the scripted model "reads" a prompt of the real size before its first byte.
READING_SECONDS = 1.5


def _like_a_cpu_server(request: ChatRequest) -> Reply:
    """Quick on a tiny request, slow to start on a long prompt (as llama.cpp on a CPU)."""
    size = sum(len(str(message.get("content") or "")) for message in request.messages)
    if size < 1_000:
        return text("OK")
    return delay(READING_SECONDS, text("Hello, everyone on the server!", chunk_delay=0.02))


def _settings(
    make_settings: Build, fake: FakeDiscord, llm: ScriptedLLM, tmp_path: Path, **extra: str
) -> Settings:
    kb = tmp_path / "kb"
    kb.mkdir(exist_ok=True)
    return make_settings(
        DISCORD_TOKEN=fake.token or "any",
        DISCORD_API_BASE=fake.api_base,
        DISCORD_GATEWAY_URL=fake.gateway_url,
        LLM_MODEL="openai/local-model",
        LLM_API_BASE=llm.api_base,
        LLM_API_KEY="none",
        KNOWLEDGE_BASE_DIR=str(kb),
        DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path}/otomo.db",
        **extra,
    )


def _speed_line(output: str) -> str:
    return next(line for line in output.splitlines() if "Model speed" in line)


async def test_a_model_slower_than_the_timeout_fails_with_the_settings_to_raise_and_their_values(
    make_settings: Build, tmp_path: Path
) -> None:
    async with FakeDiscord() as fake, ScriptedLLM() as llm:
        llm.rule = _like_a_cpu_server
        settings = _settings(
            make_settings, fake, llm, tmp_path, LLM_TIMEOUT_SECONDS="1", LLM_ROUND_SECONDS="5"
        )
        out = io.StringIO()

        code = await run_doctor(settings, out)

        timed = llm.last_request
    output = out.getvalue()
    line = _speed_line(output)
    assert code == 1, output
    assert "✓ Model              openai/local-model answered a tiny request" in output
    assert line.lstrip().startswith("✗ Model speed")
    # The prompt is of the real size (~2,000 tokens at the fake's four characters a token).
    assert sum(len(str(m.get("content") or "")) for m in timed.messages) >= 7_000
    first_token = float(re.search(r"first token after ([\d.]+) s", line)[1])  # type: ignore[index]
    assert first_token >= READING_SECONDS
    timeout = int(re.search(r"LLM_TIMEOUT_SECONDS to (\d+) \(now 1\)", line)[1])  # type: ignore[index]
    round_ = int(re.search(r"LLM_ROUND_SECONDS to (\d+) \(now 5\)", line)[1])  # type: ignore[index]
    # Computed from the measurement, with headroom for longer prompts.
    assert timeout >= 2 * first_token
    assert round_ >= timeout
    assert "in .env" in line


async def test_a_model_close_to_the_waits_is_a_note_with_the_values_to_raise(
    make_settings: Build, tmp_path: Path
) -> None:
    async with FakeDiscord() as fake, ScriptedLLM() as llm:
        llm.rule = _like_a_cpu_server
        settings = _settings(
            make_settings, fake, llm, tmp_path, LLM_TIMEOUT_SECONDS="4", LLM_ROUND_SECONDS="90"
        )
        out = io.StringIO()

        code = await run_doctor(settings, out)

    line = _speed_line(out.getvalue())
    assert code == 0, out.getvalue()
    assert line.lstrip().startswith("! Model speed")
    assert "LLM_TIMEOUT_SECONDS to 10 (now 4)" in line
    assert "LLM_ROUND_SECONDS" not in line  # 90 s fit the reading and a reply


async def test_a_fast_model_passes_with_the_defaults(make_settings: Build, tmp_path: Path) -> None:
    async with FakeDiscord() as fake, ScriptedLLM() as llm:
        llm.rule = lambda request: text("OK")
        out = io.StringIO()

        code = await run_doctor(_settings(make_settings, fake, llm, tmp_path), out)

    line = _speed_line(out.getvalue())
    assert code == 0, out.getvalue()
    assert line.lstrip().startswith("✓ Model speed")
    assert "LLM_TIMEOUT_SECONDS and LLM_ROUND_SECONDS fit it" in line
