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


# What a member reads when the model cannot answer anyone; the log has the operator's sentence.
MODEL_UNAVAILABLE = (
    "The bot's model is not reachable right now; an admin has been told in the log. "
    "Please try again later."
)


def failure_from_exception(exc: BaseException) -> LLMFailure:
    """Map a litellm/OpenAI exception to a sentence a user can act on.

    Failures of the model itself (key, name, server) are not the member's doing: they get an
    honest sentence, never "rephrase".
    """
    litellm = import_litellm()
    text = str(exc).lower()
    if isinstance(exc, litellm.AuthenticationError) or "missing credentials" in text:
        return LLMFailure("auth", MODEL_UNAVAILABLE)
    if isinstance(exc, litellm.NotFoundError) or "provider not provided" in text:
        return LLMFailure("model_not_found", MODEL_UNAVAILABLE)
    checks: list[tuple[Any, str, str]] = [
        (
            litellm.ContextWindowExceededError,
            "context_too_long",
            "This conversation got too long for the model. Start a new topic or ask an admin "
            "to raise the model's context size.",
        ),
        (
            litellm.ContentPolicyViolationError,
            "content_policy",
            "The model declined this request under its content policy. Please rephrase it.",
        ),
        (
            litellm.RateLimitError,
            "rate_limit",
            "The AI service is rate-limiting us right now. Please try again in a minute.",
        ),
        (
            litellm.Timeout,
            "timeout",
            "The bot's model took too long to answer; an admin has been told in the log. "
            "Please try again in a moment.",
        ),
        (litellm.APIConnectionError, "unreachable", MODEL_UNAVAILABLE),
        (
            litellm.BadRequestError,
            "bad_request",
            "The bot's model could not take this message; an admin has been told in the log.",
        ),
    ]
    for cls, kind, sentence in checks:
        if isinstance(exc, cls):
            return LLMFailure(kind, sentence)
    if "connection error" in text:
        return LLMFailure("unreachable", MODEL_UNAVAILABLE)
    return LLMFailure("server_error", MODEL_UNAVAILABLE)
