"""/model switches the model of this server's next answers; /otomo help shows it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.harness import running_bot
from tests.fakes.discord_server import ADMIN_ID, GUILD_ID, HANA_ID, FakeDiscord
from tests.fakes.llm_server import ScriptedLLM, text

pytestmark = pytest.mark.e2e

OFFERED = {
    "DEV_GUILD_ID": GUILD_ID,
    "LLM_MODEL": "openai/test-model",
    "LLM_MODELS": "openai/gpt-4o-mini,openai/other-model",
}
PICTURE = b"\x89PNG\r\n\x1a\n" + bytes(64)


async def test_an_admin_switches_the_model_of_the_next_request(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(text("前のモデル"), text("新しいモデル"))
    async with running_bot(tmp_path, fake=fake, llm=llm, **OFFERED) as otomo:
        await otomo.ask("こんにちは")
        before = llm.last_request.model
        switched = await (
            await fake.invoke_slash("model", {"name": "openai/gpt-4o-mini"}, user_id=ADMIN_ID)
        ).wait_response()
        _, replies = await otomo.ask("これ何？", attachments=[("cat.png", PICTURE, "image/png")])

        assert before == "test-model"
        assert switched["data"]["flags"] & 64
        assert "openai/gpt-4o-mini" in switched["data"]["content"]
        assert llm.last_request.model == "gpt-4o-mini"
        # The new model sees images, so the picture goes along as an image part.
        content = llm.last_request.last_message["content"]
        assert content[1]["type"] == "image_url"
        assert not any(m["content"].startswith("-# ") for m in replies)


async def test_members_without_manage_server_cannot_switch_and_nothing_changes(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(text("はい"))
    async with running_bot(tmp_path, fake=fake, llm=llm, **OFFERED) as otomo:
        refused = await (
            await fake.invoke_slash("model", {"name": "openai/other-model"}, user_id=HANA_ID)
        ).wait_response()
        await otomo.ask("こんにちは")

        assert "サーバー管理の権限がある人だけです" in refused["data"]["content"]
        assert llm.last_request.model == "test-model"


async def test_an_unknown_model_is_refused_with_the_choices(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    async with running_bot(tmp_path, fake=fake, llm=llm, **OFFERED):
        refused = await (
            await fake.invoke_slash("model", {"name": "openai/gpt-9"}, user_id=ADMIN_ID)
        ).wait_response()

        assert "openai/gpt-9 is not offered" in refused["data"]["content"]
        assert "openai/other-model" in refused["data"]["content"]


async def test_the_choices_are_suggested_and_help_shows_the_current_model(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    async with running_bot(tmp_path, fake=fake, llm=llm, **OFFERED):
        await (
            await fake.invoke_slash("model", {"name": "openai/other-model"}, user_id=ADMIN_ID)
        ).wait_response()
        suggested = await (
            await fake.autocomplete("model", {"name": "model"}, "name", user_id=ADMIN_ID)
        ).wait_response()
        overview = await (await fake.invoke_slash("model", user_id=ADMIN_ID)).wait_response()
        helped = await (await fake.invoke_slash("otomo help", user_id=HANA_ID)).wait_response()

        choices = suggested["data"]["choices"]
        assert [c["value"] for c in choices] == ["openai/test-model", "openai/other-model"]
        assert [c["name"] for c in choices] == ["openai/test-model", "openai/other-model ✓"]
        assert "今のモデル: `openai/other-model`" in overview["data"]["content"]
        assert "`openai/other-model`" in helped["data"]["content"]
        assert "/model" in helped["data"]["content"]
