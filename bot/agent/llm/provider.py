"""litellm itself: importing it safely, and turning its exceptions into sentences."""

from __future__ import annotations

from typing import Any

from bot.settings import prepare_litellm_environment


class LLMFailure(Exception):
    """A model call failed; `sentence` is safe to show a user, `kind` names the failure."""

    def __init__(self, kind: str, sentence: str) -> None:
        super().__init__(sentence)
        self.kind = kind
        self.sentence = sentence


def import_litellm() -> Any:
    """litellm, imported with its network look-ups off and its help banners quiet."""
    prepare_litellm_environment()
    import litellm

    # litellm prints provider help banners on errors; our own sentences replace them.
    litellm.suppress_debug_info = True
    # Any provider: drop OpenAI-only options (e.g. stream_options) a provider does not accept
    # instead of failing the call.
    litellm.drop_params = True
    # litellm counts every prompt's tokens with tiktoken to price the call (~40 MB per encoding,
    # loaded at the first call); the usage the provider reports is what we log.
    litellm.disable_token_counter = True
    return litellm


def failure_from_exception(exc: BaseException) -> LLMFailure:
    """Map a litellm/OpenAI exception to a sentence a user can act on."""
    litellm = import_litellm()
    checks: list[tuple[Any, str, str]] = [
        (
            litellm.ContextWindowExceededError,
            "context_too_long",
            "This conversation got too long for the model. Start a new topic or ask an admin "
            "to raise the model's context size.",
        ),
        (
            litellm.AuthenticationError,
            "auth",
            "The AI service refused our credentials. An admin needs to check LLM_API_KEY.",
        ),
        (
            litellm.RateLimitError,
            "rate_limit",
            "The AI service is rate-limiting us right now. Please try again in a minute.",
        ),
        (
            litellm.Timeout,
            "timeout",
            "The AI service took too long to answer. Please try again in a moment.",
        ),
        (
            litellm.APIConnectionError,
            "unreachable",
            "I could not reach the AI service. Please try again later; an admin may need to "
            "check LLM_API_BASE.",
        ),
        (
            litellm.NotFoundError,
            "model_not_found",
            "The configured model does not exist at the AI service. An admin needs to check "
            "LLM_MODEL.",
        ),
        (
            litellm.BadRequestError,
            "bad_request",
            "The AI service rejected the request. Please rephrase, or start a new topic.",
        ),
    ]
    for cls, kind, sentence in checks:
        if isinstance(exc, cls):
            return LLMFailure(kind, sentence)
    return LLMFailure(
        "server_error",
        "The AI service had an error and did not answer. Please try again in a moment.",
    )
