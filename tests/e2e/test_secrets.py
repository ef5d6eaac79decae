"""A model error that echoes the API key is stored, logged and shown without it."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.runtime.redaction import forget_secrets
from bot.storage.agent import ConversationMessage, LLMCall
from tests.e2e.harness import running_bot
from tests.fakes.discord_server import FakeDiscord
from tests.fakes.llm_server import ScriptedLLM, auth_error

pytestmark = pytest.mark.e2e

PLANTED_KEY = "sk-plantedkey-e2e-0123456789abcdef"


async def test_a_model_error_echoing_the_key_reaches_no_log_row_history_or_reply(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, caplog: pytest.LogCaptureFixture
) -> None:
    # OpenAI's own wording: the provider repeats the key it was given.
    llm.queue(auth_error(f"Incorrect API key provided: {PLANTED_KEY}. Check your key."))
    caplog.set_level(logging.INFO, logger="bot")
    try:
        async with running_bot(tmp_path, fake=fake, llm=llm, LLM_API_KEY=PLANTED_KEY) as otomo:
            _, replies = await otomo.ask("こんにちは")
            async with otomo.app.core.database.sessions() as session:
                errors = [row.error for row in await session.scalars(select(LLMCall))]
                history = [
                    row.payload for row in await session.scalars(select(ConversationMessage))
                ]
    finally:
        forget_secrets()

    [error] = errors
    assert error is not None and "AuthenticationError" in error and "[redacted]" in error
    assert PLANTED_KEY not in error
    assert PLANTED_KEY not in json.dumps(history, ensure_ascii=False)
    ours = [r.getMessage() for r in caplog.records if r.name.startswith("bot")]
    assert any("The model cannot answer" in line and "LLM_API_KEY" in line for line in ours)
    assert all(PLANTED_KEY not in line for line in ours)
    assert replies and all(PLANTED_KEY not in m["content"] for m in replies)
    # The member is told honestly; the setting to fix is in the operator's log line.
    assert "管理者にはログで知らせてあります" in replies[-1]["content"]
