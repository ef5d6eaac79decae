"""Each server's admins choose among the offered models; every process reads the choice."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import select

from bot.agent.llm.client import LLMClient
from bot.agent.llm.models import ModelChoice, UnknownModel
from bot.runtime.clock import ManualClock
from bot.settings import Settings
from bot.storage import Database
from bot.storage.agent import LLMCall
from tests.agent.conftest import Rig, collect
from tests.fakes.llm_server import text

OFFERED = {"LLM_MODEL": "openai/gpt-4o-mini", "LLM_MODELS": "openai/gpt-4o, anthropic/claude-x"}


def models(database: Database, clock: ManualClock, settings: Settings) -> ModelChoice:
    return ModelChoice(database.sessions, clock, settings)


async def test_a_server_without_a_choice_and_dms_use_llm_model(
    database: Database, clock: ManualClock, make_settings: Callable[..., Settings]
) -> None:
    choice = models(database, clock, make_settings(**OFFERED))

    assert await choice.current(1) == "openai/gpt-4o-mini"
    assert await choice.current(None) == "openai/gpt-4o-mini"
    assert choice.choices == ["openai/gpt-4o-mini", "openai/gpt-4o", "anthropic/claude-x"]


async def test_a_choice_is_per_server_and_seen_by_another_process(
    database: Database, clock: ManualClock, make_settings: Callable[..., Settings]
) -> None:
    settings = make_settings(**OFFERED)
    await models(database, clock, settings).choose(1, "openai/gpt-4o", user_id=7)
    await models(database, clock, settings).choose(1, "anthropic/claude-x", user_id=7)

    other_process = models(database, clock, settings)
    assert await other_process.current(1) == "anthropic/claude-x"
    assert await other_process.current(2) == "openai/gpt-4o-mini"


async def test_a_model_that_is_not_offered_is_refused_with_the_choices(
    database: Database, clock: ManualClock, make_settings: Callable[..., Settings]
) -> None:
    choice = models(database, clock, make_settings(**OFFERED))

    with pytest.raises(UnknownModel, match="Choose one of: openai/gpt-4o-mini, openai/gpt-4o"):
        await choice.choose(1, "openai/gpt-5-super", user_id=7)
    assert await choice.current(1) == "openai/gpt-4o-mini"


async def test_a_choice_the_operator_no_longer_offers_falls_back_to_llm_model(
    database: Database, clock: ManualClock, make_settings: Callable[..., Settings]
) -> None:
    await models(database, clock, make_settings(**OFFERED)).choose(1, "openai/gpt-4o", user_id=7)

    narrowed = models(database, clock, make_settings(LLM_MODEL="openai/gpt-4o-mini"))

    assert await narrowed.current(1) == "openai/gpt-4o-mini"


async def test_runs_in_a_server_use_and_log_its_chosen_model(rig: Rig) -> None:
    settings = rig.settings.model_copy(update={"llm_models": ["openai/other-model"]})
    choice = ModelChoice(rig.database.sessions, rig.clock, settings)
    rig.agent.llm = LLMClient(settings, rig.database.sessions, rig.clock, choice.current)
    await choice.choose(1, "openai/other-model", user_id=7)
    rig.llm.queue(text("別のモデルです"))

    await collect(rig.agent.run(rig.request(), "やあ"))  # the rig's requests are in server 1

    assert rig.llm.last_request.model == "other-model"
    async with rig.database.sessions() as session:
        (call,) = (await session.scalars(select(LLMCall))).all()
    assert call.model == "openai/other-model"
