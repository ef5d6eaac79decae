"""Console mode: the same router, agent and approvals, driven through stdin."""

from __future__ import annotations

import asyncio
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.e2e.test_process import _environment
from tests.fakes.llm_server import ScriptedLLM, text, tool_call

pytestmark = pytest.mark.e2e


async def start_console(
    llm: ScriptedLLM, database_url: str, folder: Path, **settings: str
) -> asyncio.subprocess.Process:
    """`python -m bot console` on the scripted model, with stdin, stdout and stderr piped."""
    env = _environment(
        {
            "LLM_MODEL": "openai/test-model",
            "LLM_API_BASE": llm.api_base,
            "LLM_API_KEY": "k",
            "LLM_NUM_RETRIES": "0",
            "DATABASE_URL": database_url,
            "KNOWLEDGE_BASE_DIR": str(folder / "kb"),
            "LOG_LEVEL": "WARNING",
            **settings,
        }
    )
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "console",
        cwd=folder,
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def test_console_answers_and_asks_for_approval_on_stdin(
    tmp_path: Path, llm: ScriptedLLM, bot_database: str
) -> None:
    # The console runs on the real clock: a date a month ahead is always valid.
    when = (datetime.now(UTC) + timedelta(days=30)).strftime("%Y-%m-%dT09:00")
    llm.queue(
        text("こんにちは、コンソールのOtomoです"),
        tool_call("create_reminder", {"when": when, "what": "歯医者"}),
        text("1月5日9時に登録しました"),
    )
    process = await start_console(llm, bot_database, tmp_path)
    script = "こんにちは\n来月の9時に歯医者ってリマインドして\na\n/quit\n"
    stdout, stderr = await asyncio.wait_for(process.communicate(script.encode()), 60)
    output = stdout.decode()

    assert process.returncode == 0, stderr.decode()[-2000:]
    assert "[chat] otomo> こんにちは、コンソールのOtomoです" in output
    assert "[reminder] otomo>" in output
    assert "🔐 create_reminder" in output and "approve / reject / always?" in output
    assert "✅ create_reminder" in output
    assert "1月5日9時に登録しました" in output
    assert llm.request_count == 3


async def test_the_console_is_quiet_explains_answers_and_rejections_and_offers_no_server_tools(
    tmp_path: Path, llm: ScriptedLLM, blank_database_url: str
) -> None:
    when = (datetime.now(UTC) + timedelta(days=30)).strftime("%Y-%m-%dT09:00")
    llm.queue(
        tool_call("create_reminder", {"when": when, "what": "歯医者"}),
        text("わかりました、登録しません"),
    )
    # A new database: the console migrates it, without a word of it at the prompt.
    process = await start_console(llm, blank_database_url, tmp_path, LOG_LEVEL="INFO")
    script = "来月の9時に歯医者ってリマインドして\nmaybe\nr\nやっぱり行かない\n/quit\n"
    stdout, stderr = await asyncio.wait_for(process.communicate(script.encode()), 60)
    output, errors = stdout.decode(), stderr.decode()

    assert process.returncode == 0, errors[-2000:]
    assert "Running upgrade" not in output + errors
    assert "INFO" not in output + errors
    assert "'maybe' is not an answer: type a (approve), r (reject) or always" in output
    assert "❌ create_reminder: rejected — やっぱり行かない" in output
    offered = llm.requests[0].tool_names
    assert "create_reminder" in offered
    assert not {"write_note", "list_notes", "read_note"} & set(offered)
