"""A model that never stops, or never answers, costs a member a bounded wait and says so."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.agent.conversation import messages as m
from bot.agent.conversation.history import conversation_key
from bot.i18n import answers as said
from tests.e2e.harness import running_bot
from tests.fakes.discord_server import GENERAL_CHANNEL_ID, HANA_ID, FakeDiscord
from tests.fakes.llm_server import ScriptedLLM, delay, endless, keep_alive, text

pytestmark = pytest.mark.e2e

LOOP = "ぐるぐる。"


async def _stored(otomo: object) -> list[m.Message]:
    store = otomo.app.core.store  # type: ignore[attr-defined]
    return [s.message for s in await store.all(conversation_key(GENERAL_CHANNEL_ID, HANA_ID))]


async def test_a_looping_model_stops_at_max_tokens_and_the_member_is_told_it_was_cut(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(endless(LOOP, chunk_delay=0.002))
    async with running_bot(tmp_path, fake=fake, llm=llm, LLM_MAX_TOKENS=50) as otomo:
        _, replies = await otomo.ask("暇だなー")

        assert llm.last_request.max_tokens == 50
        text = "".join(r["content"] for r in replies if not r["content"].startswith("-# "))
        assert text.startswith(LOOP) and len(text) == 200  # 50 tokens of the fake's 4 characters
        assert said.CUT_BY_LENGTH("ja") in replies[-1]["content"]
        stored = await _stored(otomo)
        assert isinstance(stored[-1], m.NoticeMessage) and "LLM_MAX_TOKENS" in stored[-1].text


async def test_an_answer_still_streaming_when_its_round_ends_is_cut_and_kept(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    # Slow and without end: far from LLM_MAX_TOKENS when the round's 5 s are over.
    llm.queue(endless(LOOP, chunk_delay=0.1))
    async with running_bot(
        tmp_path, fake=fake, llm=llm, LLM_ROUND_SECONDS=5, LLM_TIMEOUT_SECONDS=2
    ) as otomo:
        _, replies = await otomo.ask("暇だなー")

        shown = [r for r in replies if not r["content"].startswith("-# ")]
        assert shown and shown[0]["content"].startswith(LOOP)
        assert not shown[-1]["content"].endswith("…")
        assert said.CUT_BY_TIME("ja", seconds=5) in replies[-1]["content"]
        stored = await _stored(otomo)
        answers = [x for x in stored if isinstance(x, m.AssistantMessage)]
        assert len(answers) == 1 and answers[0].text.startswith(LOOP)
        assert "LLM_ROUND_SECONDS" in stored[-1].text  # type: ignore[union-attr]


async def test_a_model_that_keeps_the_line_open_without_answering_fails_within_the_round(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, caplog: pytest.LogCaptureFixture
) -> None:
    # Keep-alive bytes never let a read time out: only the round's deadline ends the wait.
    llm.queue(keep_alive(every=0.2))
    async with running_bot(
        tmp_path, fake=fake, llm=llm, LLM_ROUND_SECONDS=5, LLM_TIMEOUT_SECONDS=1
    ) as otomo:
        with caplog.at_level(logging.WARNING):
            sent = await otomo.mention("暇だなー")
            await fake.wait_for_message(GENERAL_CHANNEL_ID, after=int(sent["id"]), timeout=20)
            await otomo.idle()
        replies = otomo.bot_messages_after(sent)

        assert said.ROUND_TIMED_OUT("ja") in replies[-1]["content"]
        assert llm.request_count == 1
        assert "raise LLM_ROUND_SECONDS in .env" in caplog.text


async def test_a_model_slower_than_the_timeout_says_so_and_names_the_setting_to_raise(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, caplog: pytest.LogCaptureFixture
) -> None:
    # A model on a CPU reading a long prompt: nothing for longer than LLM_TIMEOUT_SECONDS.
    llm.queue(delay(3.0, text("やっと読めました。")))
    async with running_bot(
        tmp_path, fake=fake, llm=llm, LLM_ROUND_SECONDS=30, LLM_TIMEOUT_SECONDS=1
    ) as otomo:
        with caplog.at_level(logging.WARNING):
            _, replies = await otomo.ask("暇だなー")

        # Not "try again": the member learns the model was too slow for the bot's wait.
        assert said.MODEL_TIMEOUT("ja") in replies[-1]["content"]
        assert "もう一度" not in replies[-1]["content"]
        assert "raise LLM_TIMEOUT_SECONDS in .env" in caplog.text
        assert "(1 s)" in caplog.text
