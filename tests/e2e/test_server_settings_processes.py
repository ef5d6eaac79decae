"""A setting changed through one process applies in another process of the same bot."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.harness import bot_environment
from tests.e2e.processes import START_LIMIT, BotProcess, process_environment
from tests.fakes.discord_server import (
    ADMIN_ID,
    GENERAL_CHANNEL_ID,
    GUILD_ID,
    HANA_ID,
    FakeDiscord,
)
from tests.fakes.llm_server import ScriptedLLM, text

pytestmark = pytest.mark.e2e

SHARDS = 2
GUILD_SHARD = (GUILD_ID >> 22) % SHARDS
OTHER_SHARD = 1 - GUILD_SHARD
PERSONA = "語尾に「ござる」をつける忍者"


async def started(
    fake: FakeDiscord, llm: ScriptedLLM, tmp_path: Path, url: str, shard: int
) -> BotProcess:
    environ = process_environment(
        bot_environment(
            fake,
            llm,
            tmp_path,
            DATABASE_URL=url,
            SHARD_COUNT=SHARDS,
            SHARD_IDS=shard,
            SERVER_SETTINGS_REFRESH_SECONDS=0.5,
        )
    )
    bot = await BotProcess(environ, tmp_path).start()
    await bot.wait_for_line("Otomo is ready", START_LIMIT)
    return bot


async def test_a_persona_set_through_one_process_is_heard_from_the_other(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, database_url: str
) -> None:
    llm.queue(text("承知したでござる"))
    answering = await started(fake, llm, tmp_path, database_url, GUILD_SHARD)
    other = await started(fake, llm, tmp_path, database_url, OTHER_SHARD)
    try:
        # The admin's command reaches the process that does not answer the server's mentions.
        with fake.events_to_shard(OTHER_SHARD):
            opened = await fake.invoke_slash(
                "otomo settings", user_id=ADMIN_ID, channel_id=GENERAL_CHANNEL_ID
            )
            panel = await opened.wait_response(timeout=START_LIMIT)
            message_id = int(opened.original_message()["id"])  # type: ignore[index]
            menu = panel["data"]["components"][0]["components"][0]
            chosen = await fake.choose_select(message_id, menu["custom_id"], ["persona"], ADMIN_ID)
            modal = await chosen.wait_response()
            field = modal["data"]["components"][0]["components"][0]["custom_id"]
            submitted = await fake.submit_modal(
                modal["data"]["custom_id"],
                {field: PERSONA},
                ADMIN_ID,
                GENERAL_CHANNEL_ID,
                message_id,
            )
            await submitted.wait_response()
        await answering.wait_for_line(f"Settings of server {GUILD_ID} changed; applied here", 30)

        sent = await fake.send_user_message(
            GENERAL_CHANNEL_ID, HANA_ID, f"<@{fake.world.bot.id}> 暇だなー", mention_bot=True
        )
        await fake.wait_for_message(GENERAL_CHANNEL_ID, after=int(sent["id"]), timeout=START_LIMIT)
    finally:
        for bot in (answering, other):
            await bot.kill()

    assert answering.count("Answering") == 1 and other.count("Answering") == 0
    assert PERSONA in llm.requests[-1].system
