"""litellm itself: importing it safely, and turning its exceptions into sentences."""

from __future__ import annotations

from typing import Any

from bot.i18n import Language, Text, answers
from bot.settings import prepare_litellm_environment


class LLMFailure(Exception):
    """A model call failed; `said` is the member's sentence (in either language), `kind` names
    the failure."""

    def __init__(self, kind: str, said: Text | None = None, **fields: Any) -> None:
        self.kind = kind
        self.said = said or answers.LLM_FAILURES.get(kind, answers.MODEL_UNAVAILABLE)
        self.fields = fields
        super().__init__(self.sentence)

    @property
    def sentence(self) -> str:
        """The member's sentence in English (for logs and the console)."""
        return self.in_language("en")

    def in_language(self, language: Language) -> str:
        """The member's sentence in their language."""
        return self.said(language, **self.fields)


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
MODEL_UNAVAILABLE = answers.MODEL_UNAVAILABLE.en


def failure_from_exception(exc: BaseException) -> LLMFailure:
    """Map a litellm/OpenAI exception to a sentence a user can act on.

    Failures of the model itself (key, name, server) are not the member's doing: they get an
    honest sentence, never "rephrase".
    """
    litellm = import_litellm()
    text = str(exc).lower()
    if isinstance(exc, litellm.AuthenticationError) or "missing credentials" in text:
        return LLMFailure("auth")
    if isinstance(exc, litellm.NotFoundError) or "provider not provided" in text:
        return LLMFailure("model_not_found")
    checks: list[tuple[Any, str]] = [
        (litellm.ContextWindowExceededError, "context_too_long"),
        (litellm.ContentPolicyViolationError, "content_policy"),
        (litellm.RateLimitError, "rate_limit"),
        (litellm.Timeout, "timeout"),
        (litellm.APIConnectionError, "unreachable"),
        (litellm.BadRequestError, "bad_request"),
    ]
    for cls, kind in checks:
        if isinstance(exc, cls):
            return LLMFailure(kind)
    if "connection error" in text:
        return LLMFailure("unreachable")
    return LLMFailure("server_error")
