"""Each try at the model's provider: litellm imported safely, its exceptions turned into
sentences, how long a member waits on it, the providers' prompt caches, and the call log
(`llm_calls`: one row per try, with its latency, tokens and error).

One deadline per round, and retries only inside it. A round is one model call as the member sees
it: the request, its retries and its streamed answer. It ends by LLM_ROUND_SECONDS whatever
happens; each try waits at most LLM_TIMEOUT_SECONDS for the next byte (and never past the
deadline). Retries happen only before anything was shown, for failures another try may fix, and
only while a try still fits.

Prompt caching: OpenAI, DeepSeek, Gemini and local servers (llama.cpp, vLLM) reuse a request's
longest known prefix on their own. Anthropic's models cache only up to a `cache_control` marker:
the prompt's stable part gets one, so the tools and the stable part (which litellm sends first)
are cached.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.agent.conversation.messages import ToolCall
from bot.i18n import Language, Text, answers
from bot.settings import Settings, prepare_litellm_environment
from bot.storage.agent import LLMCall

log = logging.getLogger(__name__)

# Failures that another try may fix; the others (a bad key, a too-long conversation) never do.
RETRYABLE = frozenset({"timeout", "unreachable", "rate_limit", "server_error"})
# The pause before the first, second, third… retry (the last one repeats).
RETRY_PAUSES_SECONDS = (0.5, 2.0, 4.0)
# A try with less time than this left would only delay the failure.
SHORTEST_TRY_SECONDS = 1.0


def round_timed_out() -> LLMFailure:
    """The failure of a round that ran out of time before the model said anything."""
    return LLMFailure("timeout", answers.ROUND_TIMED_OUT)


def too_slow(setting: str, seconds: float) -> str:
    """The operator's sentence when the model did not answer within setting: raise it."""
    return (
        f"the model sent no answer within {setting} ({seconds:g} s): raise {setting} in .env "
        "(a model on a CPU can take minutes to read a long prompt; `make doctor` times one and "
        "suggests values)"
    )


@dataclass
class Patience:
    """One round's deadline (on the event loop's clock) and the tries made so far."""

    deadline: float
    per_try: float
    retries: int
    tries: int = 0

    @classmethod
    def start(cls, settings: Settings) -> Patience:
        """A round starting now."""
        now = asyncio.get_running_loop().time()
        return cls(
            now + settings.llm_round_seconds, settings.llm_timeout_seconds, settings.llm_num_retries
        )

    def left(self) -> float:
        """Seconds until the deadline (0 when it has passed)."""
        return max(0.0, self.deadline - asyncio.get_running_loop().time())

    def next_try(self) -> float:
        """Count a try; return how long it may wait for the service."""
        self.tries += 1
        return min(self.per_try, self.left())

    async def retry(self, failure: LLMFailure) -> bool:
        """Pause and return True when another try may fix failure and fits; else False."""
        if failure.kind not in RETRYABLE or self.tries > self.retries:
            return False
        pause = RETRY_PAUSES_SECONDS[min(self.tries, len(RETRY_PAUSES_SECONDS)) - 1]
        if self.left() - pause < SHORTEST_TRY_SECONDS:
            return False
        await asyncio.sleep(pause)
        return True


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


_environment_prepared = False


def import_litellm() -> Any:
    """litellm, imported with its network look-ups off and its help banners quiet."""
    global _environment_prepared
    if not _environment_prepared:  # once: the settings it writes are only ever defaults
        prepare_litellm_environment()
        _environment_prepared = True
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


# Prompt caching: the marker some providers need on a prompt's stable part, and the cached
# prompt tokens the providers report.

CACHE_MARKER = {"type": "ephemeral"}
# Providers that serve Anthropic's models and take its cache markers through litellm.
_CLAUDE_HOSTS = {"anthropic", "bedrock", "vertex_ai"}


def takes_cache_markers(model: str) -> bool:
    """Whether the model caches only what a `cache_control` marker asks for (Anthropic's)."""
    try:
        _, provider, _, _ = import_litellm().get_llm_provider(model)
    except Exception:  # a model litellm cannot place: it gets plain messages
        return False
    return provider == "anthropic" or (provider in _CLAUDE_HOSTS and "claude" in model.lower())


def with_cache_marker(messages: list[dict[str, Any]], model: str) -> list[dict[str, Any]]:
    """The messages with the first system message (the stable part) marked for caching, for
    the models that need it; unchanged for the others."""
    if not messages or messages[0].get("role") != "system" or not takes_cache_markers(model):
        return messages
    content = messages[0].get("content")
    if not isinstance(content, str) or not content:
        return messages
    part = {"type": "text", "text": content, "cache_control": CACHE_MARKER}
    return [{**messages[0], "content": [part]}, *messages[1:]]


def cached_tokens(usage: Any) -> int:
    """The prompt tokens the provider read from its cache, from a response's usage: OpenAI's
    `prompt_tokens_details.cached_tokens` (litellm maps Anthropic's and others' there too),
    else Anthropic's `cache_read_input_tokens`."""
    details = _field(usage, "prompt_tokens_details")
    cached = _field(details, "cached_tokens") if details is not None else None
    if not cached:
        cached = _field(usage, "cache_read_input_tokens")
    try:
        return max(0, int(cached or 0))
    except (TypeError, ValueError):
        return 0


def _field(value: Any, name: str) -> Any:
    if isinstance(value, dict):
        return value.get(name)
    return getattr(value, name, None)


# The call log.


def without_image_data(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages with each image's data URL shortened, for the call log."""
    cleaned: list[dict[str, Any]] = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            content = [
                {"type": "image_url", "image_url": {"url": "(image data omitted)"}}
                if part.get("type") == "image_url"
                else part
                for part in content
            ]
            message = {**message, "content": content}
        cleaned.append(message)
    return cleaned


@dataclass(frozen=True)
class CallTry:
    """What one try of a model call leaves in the log."""

    model: str
    purpose: str
    conversation_key: str | None
    started_at: datetime
    latency_ms: float
    messages: list[dict[str, Any]]
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_cached: int = 0
    error: str | None = None
    # Who the call was for: budgets and /otomo usage count per server and member.
    guild_id: int | None = None
    user_id: int | None = None


class CallLog:
    """Writes a row per try; prompts and answers only with LLM_LOG_PROMPTS (debugging)."""

    def __init__(
        self, sessions: async_sessionmaker[AsyncSession] | None, *, with_prompts: bool
    ) -> None:
        self._sessions = sessions
        self._with_prompts = with_prompts

    async def record(self, call: CallTry) -> None:
        """Add the row; a failure to write it is logged, never raised."""
        if self._sessions is None:
            return
        debug = self._with_prompts
        row = LLMCall(
            model=call.model,
            purpose=call.purpose,
            conversation_key=call.conversation_key,
            started_at=call.started_at,
            latency_ms=call.latency_ms,
            tokens_in=call.tokens_in or None,
            tokens_out=call.tokens_out or None,
            tokens_cached=call.tokens_cached or None,
            error=call.error,
            guild_id=call.guild_id,
            user_id=call.user_id,
            prompt=(
                json.dumps(without_image_data(call.messages), ensure_ascii=False) if debug else None
            ),
            response=(
                json.dumps(
                    {"text": call.text, "tool_calls": [c.model_dump() for c in call.tool_calls]},
                    ensure_ascii=False,
                )
                if debug
                else None
            ),
        )
        try:
            async with self._sessions() as session, session.begin():
                session.add(row)
        except Exception:
            # The log is diagnostics; a failure to write it must not fail the user's request.
            log.exception("Could not record an LLM call")
