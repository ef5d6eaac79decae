"""A run's edges: a shutdown mid-reply, a quick follow-up, a flooding member."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.agent.conversation import messages as m
from bot.agent.conversation.history import conversation_key
from bot.i18n import answers as said
from tests.e2e.harness import running_bot
from tests.fakes.discord_server import GENERAL_CHANNEL_ID, HANA_ID, TARO_ID, FakeDiscord, Json
from tests.fakes.llm_server import ScriptedLLM, hang, text

pytestmark = pytest.mark.e2e

INTERNAL_ERROR = "内部エラー"
BUSY = "前のお願いをまだ処理中"
RATE_REFUSAL = "ちょっと待ってください"
PARTIAL = "まず最初に、洗濯物は朝のうちに干すのがおすすめです。"


async def test_a_shutdown_during_a_streamed_reply_ends_it_as_a_stop_and_keeps_the_text(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    # The model streams the first sentence, then keeps the connection open without a word more.
    llm.queue(hang(text(PARTIAL), after_chunks=6))
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        sent = await otomo.mention("洗濯のコツを教えて")
        shown = await fake.wait_for_message(
            GENERAL_CHANNEL_ID,
            lambda message: message["content"].startswith("まず"),
            after=int(sent["id"]),
            timeout=30,
        )

        # What the SIGTERM handler does (bot/runtime/signals.py calls the client's close).
        await otomo.app.bot.close()

        replies = otomo.bot_messages_after(sent)
        contents = [message["content"] for message in replies]
        assert not any(INTERNAL_ERROR in content for content in contents)
        final = fake.message(int(shown["id"]))
        assert final is not None
        assert not final["content"].endswith("…")  # the streaming cursor is gone
        assert PARTIAL.startswith(final["content"]) and len(final["content"]) >= 2
        assert final["components"] == []  # no Stop button left on a finished answer
        assert contents[-1] == said.CLOSING_SHUTDOWN("ja")
        stored = [
            s.message
            for s in await otomo.app.core.store.all(conversation_key(GENERAL_CHANNEL_ID, HANA_ID))
        ]
        answers = [x for x in stored if isinstance(x, m.AssistantMessage)]
        assert [a.text for a in answers] == [final["content"]]
        assert isinstance(stored[-1], m.NoticeMessage) and "restarted" in stored[-1].text


async def test_a_follow_up_sent_while_the_first_run_finishes_its_bookkeeping_is_answered(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    # The first answer streams for over a second, so its reply shows Stop while it grows.
    llm.queue(text("最初の答えです。", chunk_delay=0.5), text("二つ目の答えです。"))
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        # The last step of the first run (taking the Stop button off its reply) is slow.
        slow = fake.pause_requests(
            lambda r: r.method == "PATCH" and (r.json or {}).get("components") == []
        )
        first = await otomo.mention("一つ目の質問")
        await slow.wait_reached()
        answer = otomo.bot_messages_after(first)[0]
        assert answer["content"] == "最初の答えです。"  # the reply is visible and complete

        typing_before = len(fake.typing)
        second = await otomo.mention("すぐにもう一つ")
        # The bot has taken the follow-up in: it shows typing for it (or, before, refused it).
        await fake.wait_until(
            lambda: (
                len(fake.typing) > typing_before
                or any(BUSY in message["content"] for message in otomo.bot_messages_after(second))
            )
        )
        slow.release()
        await fake.wait_for_message(
            GENERAL_CHANNEL_ID, lambda message: "二つ目" in message["content"], timeout=15
        )
        await otomo.idle()

        replies = otomo.bot_messages_after(second)
        assert not any(BUSY in message["content"] for message in replies)
        assert [message["content"] for message in replies] == ["二つ目の答えです。"]
        assert replies[0]["message_reference"]["message_id"] == second["id"]
        assert llm.request_count == 2
        # The follow-up ran after the first run: the model saw the first answer.
        assert "最初の答えです。" in str(llm.last_request.messages)


async def test_a_flooding_member_gets_one_refusal_then_reactions_and_others_are_answered(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.rule = lambda request: text("はい。")
    async with running_bot(tmp_path, fake=fake, llm=llm, USER_RATE_LIMIT_PER_MINUTE=5) as otomo:
        flood = [await otomo.mention(f"スパム {n}") for n in range(30)]
        other = await otomo.mention("天気どう？", user_id=TARO_ID)

        def told() -> int:
            return len(_refusals(fake)) + sum(_reacted(fake, sent) for sent in flood)

        # Every one of the 25 mentions over the limit has been refused one way or the other.
        await fake.wait_until(lambda: told() >= 25, timeout=15)
        await otomo.idle()

        assert len(_refusals(fake)) == 1
        assert sum(_reacted(fake, sent) for sent in flood) == 24
        answered = [
            message
            for message in fake.messages(GENERAL_CHANNEL_ID)
            if (message.get("message_reference") or {}).get("message_id") == other["id"]
        ]
        assert [message["content"] for message in answered] == ["はい。"]
        assert llm.request_count == 6  # five of Hana's mentions and Taro's


def _refusals(fake: FakeDiscord) -> list[Json]:
    return [
        message
        for message in fake.messages(GENERAL_CHANNEL_ID)
        if RATE_REFUSAL in message["content"]
    ]


def _reacted(fake: FakeDiscord, sent: Json) -> bool:
    message = fake.message(int(sent["id"]))
    return bool(message and message.get("reactions"))
