"""Listening channels answer questions without a mention, and a channel speaks in its own voice."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.i18n import replies
from bot.runtime.clock import ManualClock
from tests.conftest import START
from tests.e2e.harness import RunningBot, approval_card, custom_ids, running_bot
from tests.fakes.discord_server import (
    ADMIN_ID,
    GENERAL_CHANNEL_ID,
    GUILD_ID,
    HANA_ID,
    RANDOM_CHANNEL_ID,
    SECOND_GENERAL_CHANNEL_ID,
    SORA_ID,
    TARO_ID,
    FakeDiscord,
    Json,
)
from tests.fakes.llm_server import ScriptedLLM, text, tool_call

pytestmark = pytest.mark.e2e

KANSAI = "関西弁で、語尾に「〜やで」をつけて話す"


def stable_part(request: Any) -> str:
    """The first system message: the part of the prompt providers cache."""
    content = request.messages[0]["content"]
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content)
    return str(content)


async def answered(otomo: RunningBot, sent: Json, channel_id: int) -> list[Json]:
    await otomo.fake.wait_for_message(channel_id, after=int(sent["id"]))
    await otomo.idle()
    return otomo.bot_messages_after(sent, channel_id)


async def test_a_listening_channel_answers_a_question_and_stays_quiet_on_chatter_and_cool_down(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM
) -> None:
    fake = two_servers
    llm.queue(text("10時からです"), text("どういたしまして"))
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        await otomo.app.core.servers.change(
            GUILD_ID, {"listening_channels": frozenset({GENERAL_CHANNEL_ID})}, ADMIN_ID
        )
        question = await fake.send_user_message(
            GENERAL_CHANNEL_ID, HANA_ID, "明日の会議って何時からですか"
        )
        answer = await answered(otomo, question, GENERAL_CHANNEL_ID)

        chatter = await fake.send_user_message(GENERAL_CHANNEL_ID, TARO_ID, "おはよう")
        # A question within the channel's cool-down, and a reply to another member.
        await fake.send_user_message(GENERAL_CHANNEL_ID, TARO_ID, "資料はどこにありますか？")
        await fake.send_user_message(
            GENERAL_CHANNEL_ID, TARO_ID, "何時だろう？", reply_to=int(question["id"])
        )
        # The other server listens nowhere.
        await fake.send_user_message(
            SECOND_GENERAL_CHANNEL_ID, SORA_ID, "明日の会議って何時からですか"
        )
        # A mention is answered whatever the cool-down says.
        thanks = await otomo.mention("ありがとう", channel_id=GENERAL_CHANNEL_ID)
        after_chatter = await answered(otomo, thanks, GENERAL_CHANNEL_ID)
        quiet = otomo.bot_messages_after(chatter, GENERAL_CHANNEL_ID)
        other_server = otomo.bot_messages_after(question, SECOND_GENERAL_CHANNEL_ID)

    assert [m["content"] for m in answer] == ["10時からです"]
    assert answer[0]["message_reference"]["message_id"] == question["id"]
    assert [m["content"] for m in quiet] == ["どういたしまして"]
    assert after_chatter == quiet
    assert other_server == []
    assert llm.request_count == 2


async def test_an_admin_sets_a_channel_voice_that_reaches_that_channel_only(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM
) -> None:
    fake = two_servers
    fake.world.client_locale = "en"
    llm.queue(text("It starts at ten, yo"), text("hi"), text("hi"))
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        refused = await fake.invoke_slash("otomo channel", user_id=HANA_ID)
        refusal = await refused.wait_response()

        opened = await fake.invoke_slash("otomo channel", user_id=ADMIN_ID)
        shown = await opened.wait_response()
        panel = opened.original_message()
        assert panel is not None
        listen, _ = custom_ids(panel)
        toggled = await fake.click_button(int(panel["id"]), listen, ADMIN_ID)
        redrawn = await toggled.wait_response()
        # The redrawn panel carries new buttons.
        _, persona = custom_ids(redrawn["data"])
        asked = await fake.click_button(int(panel["id"]), persona, ADMIN_ID)
        modal = await asked.wait_response()
        field = modal["data"]["components"][0]["components"][0]["custom_id"]
        submitted = await fake.submit_modal(
            modal["data"]["custom_id"], {field: KANSAI}, ADMIN_ID, GENERAL_CHANNEL_ID
        )
        saved = await submitted.wait_response()

        question = await fake.send_user_message(
            GENERAL_CHANNEL_ID, HANA_ID, "can you tell me when the meeting starts"
        )
        await answered(otomo, question, GENERAL_CHANNEL_ID)
        await otomo.ask("hello", channel_id=RANDOM_CHANNEL_ID)
        await otomo.ask("hello", channel_id=SECOND_GENERAL_CHANNEL_ID, user_id=SORA_ID)

    assert refusal["data"]["content"] == replies.SETTINGS_REFUSAL("en")
    assert "Off (only when mentioned)" in str(shown["data"]["embeds"])
    assert "On (after an answer, quiet for 120 s)" in str(redrawn["data"]["embeds"])
    assert KANSAI in str(saved["data"]["embeds"])
    assert KANSAI in stable_part(llm.requests[0])
    assert KANSAI not in llm.requests[1].system
    assert KANSAI not in llm.requests[2].system


async def test_an_unasked_answer_asks_before_acting_and_keeps_to_the_budget(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM
) -> None:
    fake = two_servers
    clock = ManualClock(START)
    llm.queue(tool_call("create_reminder", {"when": "2026-12-01T09:00", "what": "歯医者"}))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        await otomo.app.core.servers.change(
            GUILD_ID, {"listening_channels": frozenset({GENERAL_CHANNEL_ID})}, ADMIN_ID
        )
        await fake.send_user_message(
            GENERAL_CHANNEL_ID, HANA_ID, "12月1日の9時に歯医者ってリマインドしてくれる？"
        )
        await fake.wait_until(lambda: approval_card(fake) is not None, timeout=10)
        await otomo.idle()

        # Past the cool-down, with Hana's daily budget spent: one sentence, no model call.
        await otomo.app.core.servers.change(GUILD_ID, {"member_daily_tokens": 1}, ADMIN_ID)
        clock.advance(timedelta(seconds=121))
        question = await fake.send_user_message(
            GENERAL_CHANNEL_ID, HANA_ID, "明日の天気はどうですか？"
        )
        refused = await answered(otomo, question, GENERAL_CHANNEL_ID)

    assert llm.request_count == 1
    assert len(refused) == 1 and "利用上限" in refused[0]["content"]
