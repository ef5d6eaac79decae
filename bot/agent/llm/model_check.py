"""Is the configured model usable? Checked before the bot says it is ready, and by `doctor`.

Three steps, cheapest first: the provider prefix is one litellm knows, the key is there when
that provider needs one, and one tiny request is answered (skippable: LLM_CHECK_ON_START).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from bot.agent.llm.provider import import_litellm
from bot.runtime.redaction import redact
from bot.settings import Settings

# The tiny request: a few output tokens, no retries, a short wait.
CHECK_MAX_TOKENS = 5
CHECK_TIMEOUT_SECONDS = 30.0
PROVIDER_EXAMPLES = "openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest or ollama/llama3.1"


@dataclass(frozen=True)
class ModelProblem(Exception):
    """The model cannot answer; `sentence` names the setting to fix.

    `unreachable` tells a server that may come back (worth a restart later) from a setting
    that is wrong (a restart cannot help).
    """

    sentence: str
    unreachable: bool = False

    def __str__(self) -> str:
        return self.sentence


@dataclass(frozen=True)
class ModelAnswered:
    """The tiny request was answered (or rate-limited, which proves key and model exist)."""

    model: str
    seconds: float
    note: str = ""


def _setting_of(model: str, settings: Settings) -> str:
    if model == settings.llm_model:
        return "LLM_MODEL"
    if model in settings.llm_fallback_models:
        return "LLM_FALLBACK_MODELS"
    return "LLM_MODELS"


def configured_models(settings: Settings) -> list[str]:
    """Every model the settings name, LLM_MODEL first, each once."""
    seen: dict[str, None] = {settings.llm_model: None}
    for model in (*settings.llm_fallback_models, *settings.llm_models):
        seen.setdefault(model, None)
    return list(seen)


def check_configuration(settings: Settings, models: Iterable[str] | None = None) -> None:
    """Raise ModelProblem when a model's provider is unknown or its key is missing."""
    litellm = import_litellm()
    for model in configured_models(settings) if models is None else models:
        setting = _setting_of(model, settings)
        try:
            _, provider, _, _ = litellm.get_llm_provider(model, api_base=settings.llm_api_base)
        except Exception:
            raise ModelProblem(
                f"{setting} {model!r} does not start with a provider litellm knows: write it "
                f"as provider/model, e.g. {PROVIDER_EXAMPLES}"
            ) from None
        if settings.llm_api_key is not None:
            continue
        missing = _missing_keys(litellm, model)
        if missing:
            raise ModelProblem(
                f"{setting} {model!r} ({provider}) needs an API key: set LLM_API_KEY in .env "
                f"(or {' / '.join(missing)} in the environment)"
                + ("; a server that needs no key takes any value" if settings.llm_api_base else "")
            )


def _missing_keys(litellm: Any, model: str) -> list[str]:
    """The provider's key variables that are unset; base URLs are not keys (they default)."""
    try:
        found = litellm.validate_environment(model=model)
    except Exception:
        return []
    return [
        name
        for name in found.get("missing_keys") or []
        if "KEY" in name or "TOKEN" in name or "SECRET" in name
    ]


async def ask_model(settings: Settings, model: str | None = None) -> ModelAnswered:
    """One tiny request to the model; ModelProblem with a sentence when it cannot answer."""
    litellm = import_litellm()
    model = model or settings.llm_model
    params: dict[str, Any] = {
        "model": model,
        "messages": [{"role": "user", "content": "Reply with OK."}],
        "max_tokens": CHECK_MAX_TOKENS,
        "timeout": min(settings.llm_timeout_seconds, CHECK_TIMEOUT_SECONDS),
        "num_retries": 0,
    }
    if settings.llm_api_base:
        params["api_base"] = settings.llm_api_base
    if settings.llm_api_key:
        params["api_key"] = settings.llm_api_key.get_secret_value()
    started = time.perf_counter()
    try:
        await litellm.acompletion(**params)
    except litellm.RateLimitError:
        # Key and model exist; the provider is only busy right now.
        return ModelAnswered(model, time.perf_counter() - started, "rate-limited, but it exists")
    except Exception as exc:
        raise problem_from_exception(exc, model, settings) from None
    return ModelAnswered(model, time.perf_counter() - started)


def problem_from_exception(
    exc: BaseException, model: str, settings: Settings, asked: str = "the start-up check"
) -> ModelProblem:
    """The sentence for an operator when the model refused or could not be reached; asked
    names the request that failed (the start-up check, or a call made for members)."""
    litellm = import_litellm()
    where = settings.llm_api_base or "the provider's API"
    detail = redact(_first_line(exc))
    if isinstance(exc, litellm.AuthenticationError) or "missing credentials" in detail.lower():
        return ModelProblem(
            f"the model's API refused the key ({detail}): set a valid LLM_API_KEY for {model!r}"
        )
    if isinstance(exc, litellm.NotFoundError):
        return ModelProblem(
            f"LLM_MODEL {model!r} does not exist at {where} ({detail}): check the model's name"
        )
    if isinstance(exc, litellm.BadRequestError) and "provider not provided" in detail.lower():
        return ModelProblem(
            f"LLM_MODEL {model!r} does not start with a provider litellm knows: write it as "
            f"provider/model, e.g. {PROVIDER_EXAMPLES}"
        )
    if isinstance(exc, litellm.Timeout | litellm.APIConnectionError) or _connection_failed(exc):
        return ModelProblem(
            f"the model's API at {where} cannot be reached ({detail}): check LLM_API_BASE and "
            "that the server runs",
            unreachable=True,
        )
    status = getattr(exc, "status_code", None)
    return ModelProblem(
        f"the model {model!r} at {where} answered {asked} with an error "
        f"({status or type(exc).__name__}: {detail}): check LLM_MODEL and LLM_API_BASE",
        unreachable=isinstance(status, int) and status >= 500,
    )


def _connection_failed(exc: BaseException) -> bool:
    """litellm reports a refused connection as a 500 "Connection error." wrapping the cause."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) or type(current).__name__ in _CONNECTION_ERRORS:
            return True
        current = current.__cause__ or current.__context__
    return "connection error" in str(exc).lower()


_CONNECTION_ERRORS = frozenset({"APIConnectionError", "ConnectError", "ConnectTimeout"})
_NOISE = re.compile(r"^(?:litellm\.)?(?:\w+Error: |\w+Exception - )+")


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines() or [type(exc).__name__]
    return _NOISE.sub("", lines[0].replace("litellm.", ""))[:200] or type(exc).__name__
