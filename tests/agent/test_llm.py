"""The model client: every call is logged; fallbacks take over when the main model fails."""

from __future__ import annotations

import logging

import pytest
from sqlalchemy import select

from bot.agent import events as ev
from bot.agent.llm.client import LLMClient
from bot.i18n import answers
from bot.storage.agent import LLMCall
from tests.agent.conftest import Rig, collect
from tests.fakes.llm_server import ChatRequest, Reply, hang, server_error, text


async def _calls(rig: Rig) -> list[LLMCall]:
    async with rig.database.sessions() as session:
        return list((await session.scalars(select(LLMCall).order_by(LLMCall.id))).all())


async def test_each_call_is_logged_without_prompts_by_default(rig: Rig) -> None:
    rig.llm.queue(text("こんにちは"), server_error())

    await collect(rig.agent.run(rig.request(), "やあ"))
    await collect(rig.agent.run(rig.request(), "もう一度"))

    ok, failed = await _calls(rig)
    assert ok.model == "openai/test-model" and ok.purpose == "general"
    assert ok.conversation_key == "c10:u100"
    assert ok.latency_ms > 0 and ok.tokens_in and ok.tokens_out
    assert ok.error is None and ok.prompt is None and ok.response is None
    assert failed.error is not None and "InternalServerError" in failed.error


async def test_prompts_are_logged_only_with_the_debug_setting(rig: Rig) -> None:
    settings = rig.settings.model_copy(update={"llm_log_prompts": True})
    rig.agent.llm = LLMClient(settings, rig.database.sessions, rig.clock)
    rig.llm.queue(text("記録します"))

    await collect(rig.agent.run(rig.request(), "秘密の質問"))

    (call,) = await _calls(rig)
    assert call.prompt is not None and "秘密の質問" in call.prompt
    assert call.response is not None and "記録します" in call.response


async def test_fallback_model_answers_when_the_main_model_fails(rig: Rig) -> None:
    def by_model(request: ChatRequest) -> Reply:
        return server_error() if request.model == "test-model" else text("予備のモデルです")

    rig.llm.rule = by_model
    settings = rig.settings.model_copy(update={"llm_fallback_models": ["openai/backup-model"]})
    rig.agent.llm = LLMClient(settings, rig.database.sessions, rig.clock)

    events = await collect(rig.agent.run(rig.request(), "やあ"))

    assert isinstance(events[-1], ev.Done)
    assert "".join(e.text for e in events if isinstance(e, ev.TextDelta)) == "予備のモデルです"
    assert [r.model for r in rig.llm.requests] == ["test-model", "backup-model"]


async def test_a_model_that_never_answers_times_out_with_a_sentence(rig: Rig) -> None:
    rig.llm.queue(hang())
    settings = rig.settings.model_copy(update={"llm_timeout_seconds": 0.5})
    rig.agent.llm = LLMClient(settings, rig.database.sessions, rig.clock)

    events = await collect(rig.agent.run(rig.request(), "やあ"))

    failed = events[-1]
    assert isinstance(failed, ev.Failed) and failed.kind == "timeout"
    # Asked in Japanese, told in Japanese that the model was too slow (not "try again").
    assert failed.message == answers.MODEL_TIMEOUT("ja")


async def test_requests_cap_the_answer_at_llm_max_tokens(rig: Rig) -> None:
    settings = rig.settings.model_copy(update={"llm_max_tokens": 300})
    rig.agent.llm = LLMClient(settings, rig.database.sessions, rig.clock)
    rig.llm.queue(text("はい"))

    await collect(rig.agent.run(rig.request(), "やあ"))

    assert rig.llm.last_request.max_tokens == 300


async def test_a_failing_model_is_tried_again_within_the_round(rig: Rig) -> None:
    settings = rig.settings.model_copy(
        update={"llm_num_retries": 2, "llm_timeout_seconds": 1.0, "llm_round_seconds": 10.0}
    )
    rig.agent.llm = LLMClient(settings, rig.database.sessions, rig.clock)
    rig.llm.queue(server_error(), server_error(), text("三度目の正直"))

    events = await collect(rig.agent.run(rig.request(), "やあ"))

    assert isinstance(events[-1], ev.Done)
    assert rig.llm.request_count == 3
    assert [call.error is not None for call in await _calls(rig)] == [True, True, False]


async def test_retries_stop_when_the_next_try_would_not_fit_the_round(rig: Rig) -> None:
    # Tries of 1 s in a 5 s round: after two silent tries and the pauses between them, a third
    # would end past the deadline, so the member hears of the failure instead.
    settings = rig.settings.model_copy(
        update={"llm_num_retries": 4, "llm_timeout_seconds": 1.0, "llm_round_seconds": 5.0}
    )
    rig.agent.llm = LLMClient(settings, rig.database.sessions, rig.clock)
    rig.llm.queue(hang(), hang(), hang(), hang(), hang())

    events = await collect(rig.agent.run(rig.request(), "やあ"))

    failed = events[-1]
    assert isinstance(failed, ev.Failed) and failed.kind == "timeout"
    assert rig.llm.request_count == 2


async def test_a_server_error_during_a_chat_is_not_logged_as_the_start_up_check(
    rig: Rig, caplog: pytest.LogCaptureFixture
) -> None:
    rig.llm.rule = lambda request: server_error()

    with caplog.at_level(logging.WARNING, logger="bot"):
        events = await collect(rig.agent.run(rig.request(), "やあ"))

    assert isinstance(events[-1], ev.Failed)
    said = [r.getMessage() for r in caplog.records if "The model cannot answer" in r.getMessage()]
    assert said, [r.getMessage() for r in caplog.records]
    assert all("start-up check" not in line for line in said)
    assert all("answered a general call with an error (500" in line for line in said)
