"""Every first mistake an operator makes ends `python -m bot run` with one sentence and an exit
code of its own, never a traceback (unless LOG_LEVEL=DEBUG), and never "Otomo is ready"."""

from __future__ import annotations

import asyncio
import json
import socket
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from bot.app.start_failures import ExitCode
from tests.databases import POSTGRES_URL, PostgresServer
from tests.e2e.harness import bot_environment
from tests.e2e.processes import process_environment
from tests.fakes.discord.gateway import INTENT_GUILD_MEMBERS
from tests.fakes.discord_server import FakeDiscord
from tests.fakes.llm_server import ScriptedLLM, auth_error, model_not_found
from tests.fakes.local_server import free_port
from tests.fakes.netguard import blocked_lines

pytestmark = pytest.mark.e2e

START_LIMIT = 120


@dataclass
class Ended:
    """How a `python -m bot run` ended."""

    code: int
    log: str

    @property
    def failure(self) -> str:
        """The "could not start" line, without its timestamp."""
        lines = [line for line in self.log.splitlines() if "Otomo could not start:" in line]
        assert len(lines) == 1, self.log[-3000:]
        return lines[0].split("Otomo could not start: ", 1)[1]


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    """A fake Discord whose portal has every privileged intent on."""
    async with FakeDiscord() as server:
        yield server


@pytest.fixture
async def llm() -> AsyncIterator[ScriptedLLM]:
    """A scripted model."""
    async with ScriptedLLM() as server:
        yield server


async def run_bot(tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, **settings: object) -> Ended:
    """`python -m bot run` as `make run` starts it, until it exits by itself."""
    environ = bot_environment(
        fake,
        llm,
        tmp_path,
        **{"DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'otomo.db'}", **settings},
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "run",
        cwd=tmp_path,
        env=process_environment(environ),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(), START_LIMIT)
    log = stderr.decode(errors="replace")
    assert process.returncode is not None
    assert stdout == b""
    assert blocked_lines(log) == []
    return Ended(process.returncode, log)


def assert_plain_failure(ended: Ended, code: ExitCode) -> None:
    """The exit code, one sentence, no traceback, never ready, no secret."""
    assert ended.code == code, ended.log[-3000:]
    assert "Traceback" not in ended.log
    assert "Otomo is ready" not in ended.log
    assert "test-key" not in ended.log and "fake-bot-token" not in ended.log


async def test_a_wrong_token_is_a_sentence_with_the_fix(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    ended = await run_bot(tmp_path, fake, llm, DISCORD_TOKEN="MTIz.not-the-token")

    assert_plain_failure(ended, ExitCode.DISCORD_TOKEN)
    assert ended.failure.startswith("Discord refused DISCORD_TOKEN (401 Unauthorized)")
    assert "Reset Token" in ended.failure
    assert "MTIz.not-the-token" not in ended.log


async def test_a_token_revoked_at_the_gateway_close_4004_is_a_sentence(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    fake.token_revoked_at_gateway = True

    ended = await run_bot(tmp_path, fake, llm)

    assert_plain_failure(ended, ExitCode.DISCORD_TOKEN)
    assert ended.failure.startswith(
        "Discord's gateway refused DISCORD_TOKEN (close code 4004, authentication failed)"
    )


async def test_missing_privileged_intents_close_4014_names_the_toggle(
    tmp_path: Path, llm: ScriptedLLM
) -> None:
    async with FakeDiscord(allowed_intents=INTENT_GUILD_MEMBERS) as fake:
        ended = await run_bot(tmp_path, fake, llm)

    assert_plain_failure(ended, ExitCode.DISCORD_INTENTS)
    assert ended.failure.startswith(
        "Discord refused the privileged intents Otomo needs (gateway close code 4014): "
        "switch on Message Content Intent in the Discord Developer Portal"
    )
    assert "Server Members Intent" not in ended.failure  # that one is on


async def test_debug_logging_shows_the_traceback_behind_the_sentence(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    ended = await run_bot(tmp_path, fake, llm, DISCORD_TOKEN="wrong", LOG_LEVEL="DEBUG")

    assert ended.code == ExitCode.DISCORD_TOKEN
    assert "Traceback" in ended.log and "LoginFailure" in ended.log


@pytest.mark.parametrize(
    ("database", "code", "words"),
    [
        (
            "postgresql+asyncpg://postgres@127.0.0.1:{free}/otomo",
            ExitCode.DATABASE_UNREACHABLE,
            "PostgreSQL on 127.0.0.1:{free} cannot be reached",
        ),
        (
            "mysql+aiomysql://otomo:hunter2@127.0.0.1/otomo",
            ExitCode.DATABASE_DRIVER,
            "DATABASE_URL uses mysql+aiomysql, which Otomo does not support",
        ),
        (
            "sqlite+aiosqlite:///{tmp}/a-file/otomo.db",
            ExitCode.DATABASE_PATH,
            "The SQLite database '{tmp}/a-file/otomo.db' cannot be created or written",
        ),
    ],
)
async def test_a_database_that_cannot_be_used_is_a_sentence(
    tmp_path: Path,
    fake: FakeDiscord,
    llm: ScriptedLLM,
    database: str,
    code: ExitCode,
    words: str,
) -> None:
    (tmp_path / "a-file").write_text("not a folder")
    port = free_port()

    ended = await run_bot(
        tmp_path, fake, llm, DATABASE_URL=database.format(free=port, tmp=tmp_path)
    )

    assert_plain_failure(ended, code)
    assert ended.failure.startswith(words.format(free=port, tmp=tmp_path))
    assert "hunter2" not in ended.log
    assert fake.identifies == 0  # it stopped before connecting to Discord


async def test_a_postgresql_database_that_does_not_exist_says_how_to_create_it(
    tmp_path: Path,
    fake: FakeDiscord,
    llm: ScriptedLLM,
    postgres_server: PostgresServer | None,
) -> None:
    if postgres_server is None:
        pytest.skip("no PostgreSQL server answers")
    url = make_url(POSTGRES_URL).set(database="otomo_missing_db")

    ended = await run_bot(
        tmp_path, fake, llm, DATABASE_URL=url.render_as_string(hide_password=False)
    )

    assert_plain_failure(ended, ExitCode.DATABASE_MISSING)
    assert ended.failure.startswith("The PostgreSQL database 'otomo_missing_db' does not exist")
    assert "createdb otomo_missing_db" in ended.failure


async def test_a_knowledge_base_folder_that_is_not_there_is_a_sentence(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    typo = tmp_path / "knowlege_base"

    ended = await run_bot(tmp_path, fake, llm, KNOWLEDGE_BASE_DIR=str(typo))

    assert_plain_failure(ended, ExitCode.KNOWLEDGE_BASE)
    assert ended.failure == (
        f"KNOWLEDGE_BASE_DIR {str(typo)!r} does not exist: create the folder or fix the path "
        "in .env"
    )


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (None, "cannot be read"),
        ("{not json", "is not valid JSON"),
        (
            json.dumps({"mcpServers": {"files": {"command": "no-such-mcp-server-xyz"}}}),
            "MCP server 'files' in",
        ),
    ],
)
async def test_an_mcp_servers_file_that_cannot_be_used_is_a_sentence(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, content: str | None, words: str
) -> None:
    servers = tmp_path / "mcp.json"
    if content is not None:
        servers.write_text(content)

    ended = await run_bot(tmp_path, fake, llm, MCP_SERVERS_FILE=str(servers))

    assert_plain_failure(ended, ExitCode.MCP_FILE)
    assert words in ended.failure and "MCP_SERVERS_FILE" in ended.log


@pytest.mark.parametrize(
    ("setting", "code", "extra"),
    [
        ("TOOLS_API_PORT", ExitCode.TOOLS_API_PORT, {"TOOLS_API_TOKEN": "0123456789abcdef0123"}),
        ("HEALTH_PORT", ExitCode.HEALTH_PORT, {}),
    ],
)
async def test_a_port_that_is_taken_is_a_sentence(
    tmp_path: Path,
    fake: FakeDiscord,
    llm: ScriptedLLM,
    setting: str,
    code: ExitCode,
    extra: dict[str, str],
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        ended = await run_bot(tmp_path, fake, llm, **{setting: str(port), **extra})

    assert_plain_failure(ended, code)
    assert ended.failure.startswith(f"{setting} {port} on 127.0.0.1 is taken")


async def test_a_model_that_refuses_the_key_stops_the_start(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(auth_error())

    ended = await run_bot(tmp_path, fake, llm, LLM_CHECK_ON_START="true")

    assert_plain_failure(ended, ExitCode.MODEL_CONFIG)
    assert ended.failure.startswith("the model's API refused the key")
    assert "LLM_API_KEY" in ended.failure
    assert llm.request_count == 1  # one tiny request, no retries


async def test_a_model_name_the_server_does_not_know_stops_the_start(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(model_not_found("gpt-99-turbo"))

    ended = await run_bot(
        tmp_path, fake, llm, LLM_CHECK_ON_START="true", LLM_MODEL="openai/gpt-99-turbo"
    )

    assert_plain_failure(ended, ExitCode.MODEL_CONFIG)
    assert ended.failure.startswith("LLM_MODEL 'openai/gpt-99-turbo' does not exist at")


async def test_a_model_prefix_litellm_does_not_know_stops_the_start_without_a_request(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    ended = await run_bot(tmp_path, fake, llm, LLM_MODEL="gpt-99-turbo")

    assert_plain_failure(ended, ExitCode.MODEL_CONFIG)
    assert ended.failure.startswith(
        "LLM_MODEL 'gpt-99-turbo' does not start with a provider litellm knows"
    )
    assert llm.request_count == 0


async def test_with_json_logs_the_failure_is_one_json_line(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    ended = await run_bot(
        tmp_path, fake, llm, KNOWLEDGE_BASE_DIR=str(tmp_path / "nowhere"), LOG_FORMAT="json"
    )

    entries = [json.loads(line) for line in ended.log.splitlines()]
    (failure,) = [e for e in entries if e["message"].startswith("Otomo could not start:")]
    assert ended.code == ExitCode.KNOWLEDGE_BASE
    assert failure["level"] == "ERROR" and failure["logger"] == "bot"
    assert "KNOWLEDGE_BASE_DIR" in failure["message"] and "traceback" not in failure
