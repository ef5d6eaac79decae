"""A mention gets a streamed reply; the gate, mentions safety and splitting, end to end."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.harness import running_bot
from tests.fakes.discord_server import (
    GENERAL_CHANNEL_ID,
    HANA_ID,
    TARO_ID,
    FakeDiscord,
)
from tests.fakes.llm_server import ScriptedLLM, text

pytestmark = pytest.mark.e2e


async def test_mention_gets_the_models_answer_as_a_reply(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(text("こんにちは！何かお手伝いしましょうか？", chunk_delay=0.01))
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        sent = await otomo.mention("こんにちは")
        reply = await fake.wait_for_message(
            GENERAL_CHANNEL_ID,
            lambda m: m.get("message_reference") is not None,
            after=int(sent["id"]),
        )
        await otomo.idle()

        assert reply["message_reference"]["message_id"] == sent["id"]
        final = fake.message(int(reply["id"]))
        assert final is not None and final["content"] == "こんにちは！何かお手伝いしましょうか？"
        assert final["components"] == []  # the Stop button is gone once the answer is done
        assert llm.request_count == 1
        assert llm.last_request.messages_with_role("user")[-1]["content"].endswith("こんにちは")
        assert any(r.path.endswith("/typing") for r in fake.requests)


async def test_model_text_cannot_ping_everyone_here_or_roles(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(text(f"@everyone @here <@&{fake.world.roles[1].id}> 見てね <@{TARO_ID}>"))
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        _, replies = await otomo.ask("みんなに知らせて")

        assert replies
        for message in replies:
            allowed = message["allowed_mentions"]
            assert allowed["parse"] == []
            assert allowed.get("roles", []) == []
            assert allowed.get("users", []) in ([], [HANA_ID], [str(HANA_ID)])
            assert message["mention_everyone"] is False
            assert message["mention_roles"] == []
            assert [u["id"] for u in message["mentions"]] == []


async def test_a_long_answer_is_split_without_breaking_the_code_block(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    code = "```python\n" + "".join(f"print('line {i:03d}')\n" for i in range(250)) + "```"
    answer = "説明です。\n\n" + "とても長い説明の段落です。" * 100 + "\n\n" + code + "\n\n終わり。"
    assert len(answer) > 5000
    llm.queue(text(answer))
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        _, replies = await otomo.ask("長いコードを書いて")

        contents = [m["content"] for m in replies]
        assert len(contents) >= 3
        assert all(len(c) <= 2000 for c in contents)
        for content in contents:
            assert content.count("```") % 2 == 0, content[-200:]
        rebuilt = "".join(contents)
        for i in range(250):
            assert f"print('line {i:03d}')" in rebuilt


async def test_bots_and_unmentioned_messages_are_ignored(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(text("はい"))
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        chatter = await fake.send_user_message(GENERAL_CHANNEL_ID, HANA_ID, "ただの雑談です")
        await otomo.ask("こっちは質問")

        assert llm.request_count == 1
        assert "ただの雑談" not in str(llm.last_request.messages)
        replies_to_chatter = [
            m
            for m in otomo.bot_messages_after(chatter)
            if (m.get("message_reference") or {}).get("message_id") == chatter["id"]
        ]
        assert replies_to_chatter == []


async def test_replying_to_the_bot_counts_as_talking_to_it(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(text("最初の答え"), text("続きの答え"))
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        sent = await otomo.mention("質問")
        first = await fake.wait_for_message(GENERAL_CHANNEL_ID, after=int(sent["id"]))
        await otomo.idle()
        await fake.send_user_message(
            GENERAL_CHANNEL_ID, HANA_ID, "もう少し詳しく", reply_to=int(first["id"])
        )
        await fake.wait_for_message(GENERAL_CHANNEL_ID, lambda m: "続き" in m["content"])
        await otomo.idle()

        assert llm.request_count == 2
        assert "最初の答え" in str(llm.last_request.messages)
