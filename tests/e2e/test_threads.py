"""Conversations in threads the bot opened: members talk without mentioning it, each one a
speaker of their own, and the bot still knows its threads after a restart."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.i18n import answers
from bot.runtime.clock import ManualClock
from tests.conftest import START
from tests.e2e.harness import RunningBot, approval_card, custom_ids, running_bot
from tests.fakes.discord_server import (
    GENERAL_CHANNEL_ID,
    GUILD_ID,
    HANA_ID,
    TARO_ID,
    FakeDiscord,
    Json,
)
from tests.fakes.llm_server import ChatRequest, Reply, ScriptedLLM, text, tool_call

pytestmark = pytest.mark.e2e


def echo(request: ChatRequest) -> Reply:
    """The scripted model answers with the last words it was sent (without the speaker)."""
    return text(f"了解: {str(request.last_message['content']).split(': ', 1)[-1]}")


def user_turns(request: ChatRequest) -> list[str]:
    """The user turns the model was sent, as text."""
    return [str(m["content"]) for m in request.messages_with_role("user")]


async def say_in(otomo: RunningBot, thread_id: int, user_id: int, words: str) -> list[Json]:
    """A member writes in the thread without mentioning the bot; the bot's answer to it."""
    sent = await otomo.fake.send_user_message(thread_id, user_id, words)
    await otomo.fake.wait_for_message(thread_id, after=int(sent["id"]))
    await otomo.idle()
    return otomo.bot_messages_after(sent, thread_id)


async def test_a_thread_opened_with_the_command_is_one_conversation_of_two_members_across_a_restart(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.rule = echo
    async with running_bot(tmp_path, fake=fake, llm=llm, DEV_GUILD_ID=GUILD_ID) as otomo:
        command = await fake.invoke_slash(
            "otomo thread", {"name": "週末の計画"}, user_id=HANA_ID, channel_id=GENERAL_CHANNEL_ID
        )
        told = await command.wait_followup()
        [thread] = fake.threads_created
        thread_id = int(thread["id"])
        assert thread["name"] == "週末の計画" and int(thread["parent_id"]) == GENERAL_CHANNEL_ID
        assert told["content"] == answers.THREAD_OPENED("ja", thread=f"<#{thread_id}>")
        assert told["flags"] & 64
        greeting = fake.messages(thread_id)[0]
        assert answers.THREAD_GREETING("ja") in greeting["content"]
        # The greeting pings the member who opened the thread and nobody else.
        assert greeting["allowed_mentions"]["parse"] == []
        assert [int(u) for u in greeting["allowed_mentions"]["users"]] == [HANA_ID]
        assert greeting["mention_everyone"] is False and greeting["mention_roles"] == []

        first = await say_in(otomo, thread_id, HANA_ID, "土曜に山へ行きたい")
        second = await say_in(otomo, thread_id, TARO_ID, "僕は日曜がいい")

    assert [m["content"] for m in first] == ["了解: 土曜に山へ行きたい"]
    assert [m["content"] for m in second] == ["了解: 僕は日曜がいい"]
    # One conversation: Taro's turn comes with Hana's, hers fenced as another speaker's words.
    assert user_turns(llm.last_request) == [
        '<said by="Hana">\n土曜に山へ行きたい\n</said>',
        "Taro: 僕は日曜がいい",
    ]

    async with running_bot(tmp_path, fake=fake, llm=llm, DEV_GUILD_ID=GUILD_ID) as otomo:
        after = await say_in(otomo, thread_id, HANA_ID, "じゃあ日曜で")

    assert [m["content"] for m in after] == ["了解: じゃあ日曜で"]
    assert user_turns(llm.last_request) == [
        "Hana: 土曜に山へ行きたい",
        '<said by="Taro">\n僕は日曜がいい\n</said>',
        "Hana: じゃあ日曜で",
    ]
    # Outside the bot's threads a message without a mention is still not for the bot.
    before = llm.request_count
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        await fake.send_user_message(GENERAL_CHANNEL_ID, HANA_ID, "じゃあ日曜で")
        await otomo.idle()
    assert llm.request_count == before


async def test_with_thread_conversations_on_a_mention_is_answered_in_a_new_thread(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.rule = echo
    async with running_bot(tmp_path, fake=fake, llm=llm, THREAD_CONVERSATIONS="answer") as otomo:
        sent = await otomo.mention("remind me what we planned")
        await fake.wait_until(lambda: fake.threads_created, what="a thread")
        [thread] = fake.threads_created
        thread_id = int(thread["id"])
        await fake.wait_for_message(thread_id)
        await otomo.idle()
        follow_up = await say_in(otomo, thread_id, TARO_ID, "and for me?")

    # The thread starts from the mention, named after the member in the language they wrote.
    assert thread_id == int(sent["id"]) and thread["name"] == "Conversation with Hana"
    assert otomo.bot_messages_after(sent) == []  # nothing answered in the channel itself
    answer = fake.messages(thread_id)[0]
    assert answer["content"] == "了解: remind me what we planned"
    assert [m["content"] for m in follow_up] == ["了解: and for me?"]
    assert user_turns(llm.last_request) == [
        '<said by="Hana">\nremind me what we planned\n</said>',
        "Taro: and for me?",
    ]


async def test_an_approval_in_a_thread_belongs_to_the_member_who_asked(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(
        tool_call("create_reminder", {"when": "2026-12-01T09:00", "what": "歯医者"}),
        text("登録しました"),
    )
    async with running_bot(
        tmp_path, fake=fake, llm=llm, clock=ManualClock(START), THREAD_CONVERSATIONS="answer"
    ) as otomo:
        await otomo.mention("12月1日の9時に歯医者ってリマインドして")
        await fake.wait_until(lambda: fake.threads_created, what="a thread")
        [thread] = fake.threads_created
        await fake.wait_until(lambda: approval_card(fake, int(thread["id"])), timeout=10)
        card = approval_card(fake, int(thread["id"]))
        assert card is not None
        approve = next(c for c in custom_ids(card) if c.endswith(":approve"))

        stranger = await fake.click_button(int(card["id"]), approve, TARO_ID)
        refused = (await stranger.wait_response())["data"]["content"]
        owner = await fake.click_button(int(card["id"]), approve, HANA_ID)
        await owner.wait_response()
        await fake.wait_for_message(int(thread["id"]), lambda m: m["content"] == "登録しました")
        await otomo.idle()

    assert refused == answers.NOT_YOURS("ja", name="Hana")
