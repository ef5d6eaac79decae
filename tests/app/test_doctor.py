"""`doctor`: a checklist of every start-up check, with what to fix, that changes nothing."""

from __future__ import annotations

import asyncio
import io
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.app.doctor import run_doctor
from bot.settings import Settings
from tests.e2e.harness import bot_environment
from tests.e2e.processes import process_environment
from tests.fakes.discord.gateway import INTENT_GUILD_MEMBERS
from tests.fakes.discord_server import GUILD_ID, FakeDiscord
from tests.fakes.llm_server import ScriptedLLM, auth_error, text

pytestmark = pytest.mark.e2e

Build = Callable[..., Settings]


def _settings(
    make_settings: Build, fake: FakeDiscord, llm: ScriptedLLM, tmp_path: Path, **extra: str
) -> Settings:
    kb = tmp_path / "kb"
    kb.mkdir(exist_ok=True)
    (kb / "rules.md").write_text("# Rules\nBe kind.\n")
    values = {
        "DISCORD_TOKEN": fake.token or "any",
        "DISCORD_API_BASE": fake.api_base,
        "DISCORD_GATEWAY_URL": fake.gateway_url,
        "LLM_MODEL": "openai/test-model",
        "LLM_API_BASE": llm.api_base,
        "LLM_API_KEY": "sk-doctor-secret",
        "KNOWLEDGE_BASE_DIR": str(kb),
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/data/otomo.db",
        **extra,
    }
    return make_settings(**values)


async def _doctor(settings: Settings) -> tuple[int, str]:
    out = io.StringIO()
    code = await run_doctor(settings, out)
    return code, out.getvalue()


async def test_a_working_set_up_passes_every_check_and_shows_the_invite_link(
    make_settings: Build, tmp_path: Path
) -> None:
    async with FakeDiscord() as fake, ScriptedLLM() as llm:
        llm.queue(text("OK"), text("Hello, server."))
        settings = _settings(make_settings, fake, llm, tmp_path, DEV_GUILD_ID=str(GUILD_ID))

        code, output = await _doctor(settings)

    assert code == 0, output
    assert "✓ Discord token      accepted: the bot is Otomo" in output
    assert "✓ Intents            Message Content and Server Members are on" in output
    assert f"https://discord.com/oauth2/authorize?client_id={fake.world.bot.id}" in output
    assert "not created yet; `make run` creates it" in output
    assert "1 markdown file" in output
    assert "✓ Model              openai/test-model answered a tiny request" in output
    assert "✓ Model speed" in output
    assert "Everything Otomo needs is in place" in output
    assert "sk-doctor-secret" not in output
    assert not (tmp_path / "data").exists()  # the doctor creates nothing
    assert fake.identifies == 0  # REST only: it never connects to the gateway


async def test_a_broken_set_up_lists_each_problem_with_its_fix(
    make_settings: Build, tmp_path: Path
) -> None:
    async with (
        FakeDiscord(allowed_intents=INTENT_GUILD_MEMBERS) as fake,
        ScriptedLLM() as llm,
    ):
        llm.queue(auth_error())
        settings = _settings(
            make_settings,
            fake,
            llm,
            tmp_path,
            KNOWLEDGE_BASE_DIR=str(tmp_path / "knowlege_base"),
            DATABASE_URL="mysql+aiomysql://otomo@127.0.0.1/otomo",
        )

        code, output = await _doctor(settings)

    assert code == 1
    assert "✗ Intents            Message Content Intent is off: switch it on" in output
    assert (
        "✗ Database           DATABASE_URL uses mysql+aiomysql, which Otomo does not support"
        in output
    )
    assert "knowlege_base' does not exist" in output
    assert "✗ Model              the model's API refused the key" in output
    assert "4 problems: fix the lines marked ✗ and run `make doctor` again." in output


async def test_a_wrong_token_is_named_and_the_checks_that_need_it_are_skipped(
    make_settings: Build, tmp_path: Path
) -> None:
    async with FakeDiscord() as fake, ScriptedLLM() as llm:
        llm.queue(text("OK"), text("Hello, server."))
        settings = _settings(make_settings, fake, llm, tmp_path, DISCORD_TOKEN="wrong-token")

        code, output = await _doctor(settings)

    assert code == 1
    assert "✗ Discord token      Discord refused DISCORD_TOKEN (401 Unauthorized)" in output
    assert "Reset Token" in output
    assert "- Intents            not checked: needs a working DISCORD_TOKEN" in output
    assert "- Slash commands     not checked" in output
    assert "wrong-token" not in output


async def _doctor_process(tmp_path: Path, environ: dict[str, str]) -> tuple[int, str, str]:
    """`python -m bot doctor` as `make doctor` runs it."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "doctor",
        cwd=tmp_path,
        env=process_environment(environ),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode is not None
    return process.returncode, stdout.decode(), stderr.decode()


async def test_make_doctor_prints_the_checklist_and_exits_0_on_a_working_set_up(
    tmp_path: Path,
) -> None:
    async with FakeDiscord() as fake, ScriptedLLM() as llm:
        llm.queue(text("OK"), text("Hello, server."))
        environ = bot_environment(fake, llm, tmp_path, DEV_GUILD_ID=str(GUILD_ID))

        code, output, errors = await _doctor_process(tmp_path, environ)

    assert code == 0, output + errors
    assert output.startswith("Otomo doctor: checking the settings in .env and the environment")
    assert "✗" not in output and "Traceback" not in errors
    assert (
        f"✓ Invite link        https://discord.com/oauth2/authorize?client_id={fake.world.bot.id}"
        in output
    )


async def test_make_doctor_lists_every_bad_setting_and_exits_1(tmp_path: Path) -> None:
    environ = {"BOT_TIMEZONE": "Mars/Olympus", "LLM_API_BASE": "not a url"}

    code, output, errors = await _doctor_process(tmp_path, environ)

    assert code == 1
    assert "✗ Settings           BOT_TIMEZONE 'Mars/Olympus' is not a known time zone" in output
    assert "✗ Settings           LLM_API_BASE must be a URL" in output
    assert "run `make doctor` again" in output
    assert errors == ""
