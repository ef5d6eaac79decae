"""The model check before ready: provider prefix, key, and one tiny request to the model."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.agent.llm.model_check import ModelProblem, ask_model, check_configuration
from bot.settings import Settings
from tests.fakes.llm_server import (
    ScriptedLLM,
    auth_error,
    model_not_found,
    rate_limited,
    server_error,
    text,
)
from tests.fakes.local_server import free_port

Build = Callable[..., Settings]


def test_an_unknown_provider_prefix_names_the_setting_and_the_form(make_settings: Build) -> None:
    settings = make_settings(LLM_MODEL="gpt-99-turbo", LLM_API_KEY="k")

    with pytest.raises(ModelProblem) as caught:
        check_configuration(settings)

    assert str(caught.value).startswith(
        "LLM_MODEL 'gpt-99-turbo' does not start with a provider litellm knows"
    )
    assert "openai/gpt-4o-mini" in str(caught.value)
    assert not caught.value.unreachable


def test_a_provider_that_needs_a_key_without_one_says_which_setting(
    make_settings: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    settings = make_settings(LLM_MODEL="anthropic/claude-3-5-haiku-latest")

    with pytest.raises(ModelProblem) as caught:
        check_configuration(settings)

    assert "needs an API key: set LLM_API_KEY in .env (or ANTHROPIC_API_KEY" in str(caught.value)


def test_a_fallback_model_with_an_unknown_prefix_is_named_as_such(make_settings: Build) -> None:
    settings = make_settings(LLM_API_KEY="k", LLM_FALLBACK_MODELS="openai/gpt-4o,nope-model")

    with pytest.raises(ModelProblem, match=r"^LLM_FALLBACK_MODELS 'nope-model'"):
        check_configuration(settings)


def test_a_local_server_needs_no_key_and_known_providers_with_keys_pass(
    make_settings: Build,
) -> None:
    check_configuration(
        make_settings(LLM_MODEL="hosted_vllm/qwen", LLM_API_BASE="http://127.0.0.1:8000/v1")
    )
    check_configuration(make_settings(LLM_MODEL="ollama/llama3.1"))
    check_configuration(make_settings(LLM_MODEL="openai/gpt-4o-mini", LLM_API_KEY="sk-x"))


async def test_the_tiny_request_passes_when_the_model_answers(make_settings: Build) -> None:
    async with ScriptedLLM() as llm:
        llm.queue(text("OK"))
        settings = make_settings(
            LLM_MODEL="openai/test-model", LLM_API_BASE=llm.api_base, LLM_API_KEY="k"
        )

        answered = await ask_model(settings)

        assert answered.model == "openai/test-model"
        assert llm.request_count == 1
        assert llm.last_request.body["max_tokens"] == 5


@pytest.mark.parametrize(
    ("reply", "words", "unreachable"),
    [
        (auth_error(), "the model's API refused the key", False),
        (model_not_found("gpt-99-turbo"), "LLM_MODEL 'openai/gpt-99-turbo' does not exist", False),
        (server_error(), "answered the start-up check with an error (500", True),
    ],
)
async def test_a_model_that_cannot_answer_is_a_sentence_naming_the_setting(
    make_settings: Build, reply: object, words: str, unreachable: bool
) -> None:
    async with ScriptedLLM() as llm:
        llm.queue(reply)  # type: ignore[arg-type]
        settings = make_settings(
            LLM_MODEL="openai/gpt-99-turbo", LLM_API_BASE=llm.api_base, LLM_API_KEY="sk-secret1"
        )

        with pytest.raises(ModelProblem) as caught:
            await ask_model(settings)

    assert words in str(caught.value)
    assert caught.value.unreachable is unreachable
    assert "sk-secret1" not in str(caught.value)


async def test_a_rate_limited_answer_proves_the_model_exists(make_settings: Build) -> None:
    async with ScriptedLLM() as llm:
        llm.queue(rate_limited(retry_after=0))
        settings = make_settings(
            LLM_MODEL="openai/test-model", LLM_API_BASE=llm.api_base, LLM_API_KEY="k"
        )

        answered = await ask_model(settings)

    assert answered.note == "rate-limited, but it exists"


async def test_nothing_listening_at_the_base_url_is_unreachable(make_settings: Build) -> None:
    base = f"http://127.0.0.1:{free_port()}/v1"
    settings = make_settings(LLM_MODEL="openai/test-model", LLM_API_BASE=base, LLM_API_KEY="k")

    with pytest.raises(ModelProblem) as caught:
        await ask_model(settings)

    assert caught.value.unreachable
    assert f"the model's API at {base} cannot be reached" in str(caught.value)
    assert "check LLM_API_BASE" in str(caught.value)
