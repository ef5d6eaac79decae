"""The model behind the agent: streaming calls through litellm, error sentences, a call log."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.agent.conversation.messages import ToolCall
from bot.agent.llm.model_check import problem_from_exception
from bot.agent.llm.provider import (
    CallLog,
    CallTry,
    LLMFailure,
    Patience,
    cached_tokens,
    failure_from_exception,
    import_litellm,
    round_timed_out,
    too_slow,
    with_cache_marker,
)
from bot.agent.tools.registry import WireNames
from bot.i18n import Text
from bot.runtime.clock import Clock
from bot.runtime.metrics import UNAVAILABLE_KINDS, Metrics
from bot.runtime.redaction import redact
from bot.servers.budgets import Budgets, Spent
from bot.settings import Settings

log = logging.getLogger(__name__)

__all__ = [
    "BudgetSpent",
    "LLMClient",
    "LLMFailure",
    "Payer",
    "TextChunk",
    "ToolCallName",
    "Turn",
    "Usage",
]


class BudgetSpent(LLMFailure):
    """A budget of the server or member is used up: no model call was made."""

    def __init__(self, spent: Spent) -> None:
        super().__init__("budget", Text(ja=spent.sentence("ja"), en=spent.sentence("en")))
        self.spent = spent


@dataclass
class Usage:
    """Tokens spent, summed over the calls of one run."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    # Of prompt_tokens, those the provider read from its prompt cache.
    cached_tokens: int = 0

    @classmethod
    def of_response(cls, usage: Any) -> Usage:
        """One call's usage as the provider reported it (through litellm)."""
        return cls(
            getattr(usage, "prompt_tokens", 0) or 0,
            getattr(usage, "completion_tokens", 0) or 0,
            1,
            cached_tokens(usage),
        )

    def add(self, other: Usage) -> None:
        """Accumulate another call's usage."""
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.calls += other.calls
        self.cached_tokens += other.cached_tokens


@dataclass
class TextChunk:
    """A piece of streamed answer text."""

    text: str


@dataclass
class ToolCallName:
    """The model started a tool call; its name is known, arguments still streaming."""

    index: int
    call_id: str
    name: str


@dataclass
class Turn:
    """Everything one model call produced, once the stream ended."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None

    @property
    def cut(self) -> bool:
        """Whether the answer was cut off: at LLM_MAX_TOKENS, or out of time."""
        return self.finish_reason in (LENGTH_LIMIT, TIME_LIMIT)


StreamItem = TextChunk | ToolCallName | Turn

# Turn.finish_reason of an answer the provider cut at max_tokens (OpenAI's word), and of one we
# cut because its round ran out of time.
LENGTH_LIMIT = "length"
TIME_LIMIT = "time_limit"


# The model a server's runs use (None: outside any server).
ModelSource = Callable[[int | None], Awaitable[str]]


@dataclass(frozen=True)
class Payer:
    """Whom a model call is for: the server and member whose budgets it counts against."""

    guild_id: int | None = None
    user_id: int | None = None


NOBODY = Payer()


class LLMClient:
    """Calls the chosen model through litellm and logs every call."""

    def __init__(
        self,
        settings: Settings,
        sessions: async_sessionmaker[AsyncSession] | None,
        clock: Clock,
        model_source: ModelSource | None = None,
        metrics: Metrics | None = None,
        budgets: Budgets | None = None,
    ) -> None:
        self._settings = settings
        self._budgets = budgets
        self._calls = CallLog(sessions, with_prompts=settings.llm_log_prompts)
        self._clock = clock
        self._model_source = model_source
        self._metrics = metrics

    async def current_model(self, guild_id: int | None = None) -> str:
        """The model new runs in this server use: its admins' /model choice, else LLM_MODEL."""
        if self._model_source is None:
            return self._settings.llm_model
        try:
            return await self._model_source(guild_id)
        except Exception:
            log.exception("Could not read the chosen model; using LLM_MODEL")
            return self._settings.llm_model

    def supports_vision(self, model: str) -> bool:
        """Whether the model takes image parts: LLM_VISION_MODELS, else what litellm knows."""
        if model in self._settings.llm_vision_models:
            return True
        try:
            return bool(import_litellm().supports_vision(model=model))
        except Exception:
            return False

    def _params(self, model: str, timeout: float) -> dict[str, Any]:
        settings = self._settings
        params: dict[str, Any] = {
            "model": model,
            # One try; Patience decides whether another one fits the round.
            "timeout": timeout,
            "num_retries": 0,
            # A model caught in a loop stops here instead of writing for minutes.
            "max_tokens": settings.llm_max_tokens,
        }
        if settings.llm_api_base:
            params["api_base"] = settings.llm_api_base
        if settings.llm_api_key:
            params["api_key"] = settings.llm_api_key.get_secret_value()
        if settings.llm_fallback_models:
            params["fallbacks"] = list(settings.llm_fallback_models)
        return params

    async def stream(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        *,
        purpose: str = "agent",
        conversation_key: str | None = None,
        model: str | None = None,
        payer: Payer = NOBODY,
    ) -> AsyncGenerator[StreamItem, None]:
        """Stream one model round: text chunks and tool-call names, then the whole Turn.

        The round ends by LLM_ROUND_SECONDS: an answer still streaming then is cut (its Turn
        says TIME_LIMIT), one that never started fails. A failed try is tried again only
        before anything was streamed (see Patience).
        """
        model = model or await self.current_model()
        await self._within_budget(payer)
        patience = Patience.start(self._settings)
        while True:
            streamed = False
            try:
                async for item in self._try_stream(
                    messages, tools, purpose, conversation_key, model, patience, payer
                ):
                    streamed = streamed or not isinstance(item, Turn)
                    yield item
                return
            except LLMFailure as failure:
                if streamed or not await patience.retry(failure):
                    raise

    async def _try_stream(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        purpose: str,
        conversation_key: str | None,
        model: str,
        patience: Patience,
        payer: Payer,
    ) -> AsyncGenerator[StreamItem, None]:
        """One try of a streamed call, logged."""
        litellm = import_litellm()
        turn = Turn()
        partial: dict[int, dict[str, str]] = {}
        # Providers accept only [a-zA-Z0-9_-]{1,64} as a function name: the names are mapped
        # here, and everything before and after this call sees the registered names.
        names = WireNames(t["function"]["name"] for t in tools or [] if "function" in t)
        response: Any = None
        async with self._attempt(turn, model, purpose, conversation_key, messages, payer):
            try:
                response = await asyncio.wait_for(
                    litellm.acompletion(
                        messages=WireNames.messages(with_cache_marker(messages, model)),
                        tools=WireNames.tools(tools) if tools else None,
                        stream=True,
                        stream_options={"include_usage": True},
                        **self._params(model, patience.next_try()),
                    ),
                    patience.left(),
                )
                chunks = response.__aiter__()
                while True:
                    try:
                        chunk = await asyncio.wait_for(chunks.__anext__(), patience.left())
                    except StopAsyncIteration:
                        break
                    except TimeoutError:
                        if not turn.text:
                            raise
                        # Out of time while answering: the member keeps what was shown; calls
                        # still being written are dropped (their arguments are cut).
                        turn.finish_reason = TIME_LIMIT
                        partial.clear()
                        break
                    usage = getattr(chunk, "usage", None)
                    if usage:
                        turn.usage = Usage.of_response(usage)
                    if not chunk.choices:
                        continue
                    choice = chunk.choices[0]
                    if choice.finish_reason:
                        turn.finish_reason = choice.finish_reason
                    delta = choice.delta
                    if delta is None:
                        continue
                    if delta.content:
                        turn.text += delta.content
                        yield TextChunk(delta.content)
                    for call in delta.tool_calls or []:
                        index = call.index if call.index is not None else len(partial)
                        entry = partial.setdefault(index, {"id": "", "name": "", "arguments": ""})
                        if call.id:
                            entry["id"] = call.id
                        function = call.function
                        if function is not None and function.name and not entry["name"]:
                            entry["name"] = names.registered(function.name)
                            yield ToolCallName(index, entry["id"] or f"call_{index}", entry["name"])
                        if function is not None and function.arguments:
                            entry["arguments"] += function.arguments
                turn.tool_calls = [
                    ToolCall(
                        id=entry["id"] or f"call_{index}",
                        name=entry["name"],
                        arguments=entry["arguments"],
                    )
                    for index, entry in sorted(partial.items())
                    if entry["name"]
                ]
            finally:
                turn.usage.calls = 1
                if response is not None:
                    await _close(response)
        yield turn

    async def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        purpose: str,
        conversation_key: str | None = None,
        model: str | None = None,
        payer: Payer = NOBODY,
    ) -> str:
        """One non-streamed text answer (summaries, tips), within one round's patience."""
        model = model or await self.current_model(payer.guild_id)
        await self._within_budget(payer)
        patience = Patience.start(self._settings)
        while True:
            try:
                return await self._try_complete(
                    messages, purpose, conversation_key, model, patience, payer
                )
            except LLMFailure as failure:
                if not await patience.retry(failure):
                    raise

    async def _try_complete(
        self,
        messages: list[dict[str, Any]],
        purpose: str,
        conversation_key: str | None,
        model: str,
        patience: Patience,
        payer: Payer,
    ) -> str:
        litellm = import_litellm()
        turn = Turn()
        async with self._attempt(turn, model, purpose, conversation_key, messages, payer):
            response = await asyncio.wait_for(
                litellm.acompletion(
                    messages=WireNames.messages(with_cache_marker(messages, model)),
                    **self._params(model, patience.next_try()),
                ),
                patience.left(),
            )
            turn.text = response.choices[0].message.content or ""
            usage = getattr(response, "usage", None)
            if usage:
                turn.usage = Usage.of_response(usage)
        return turn.text

    async def _within_budget(self, payer: Payer) -> None:
        """Refuse the call (no request made) when the server's or member's budget is spent."""
        if self._budgets is None or payer.guild_id is None:
            return
        spent = await self._budgets.spent(payer.guild_id, payer.user_id)
        if spent is not None:
            raise BudgetSpent(spent)

    @contextlib.asynccontextmanager
    async def _attempt(
        self,
        turn: Turn,
        model: str,
        purpose: str,
        conversation_key: str | None,
        messages: list[dict[str, Any]],
        payer: Payer,
    ) -> AsyncIterator[None]:
        """One try at the provider: its timeout or failure raised as the member's LLMFailure,
        and the try logged (metrics, llm_calls) however it ended."""
        started = self._clock.now()
        t0 = time.perf_counter()
        error: str | None = None
        kind: str | None = None
        try:
            yield
        except TimeoutError:
            error = f"no answer within LLM_ROUND_SECONDS ({self._settings.llm_round_seconds:g})"
            self._too_slow(purpose, "LLM_ROUND_SECONDS")
            raise round_timed_out() from None
        except Exception as exc:
            error = redact(f"{type(exc).__name__}: {exc}")
            failure = self._failed(exc, model, purpose, error)
            kind = failure.kind
            raise failure from exc
        finally:
            await self._log(
                model, purpose, conversation_key, started, t0, turn, error, messages, kind, payer
            )

    def _failed(self, exc: Exception, model: str, purpose: str, error: str) -> LLMFailure:
        """The member's sentence; the operator's goes to the log, at ERROR when the model
        itself cannot answer (key, name, server), since every member is affected."""
        failure = failure_from_exception(exc)
        if failure.kind == "timeout":
            self._too_slow(purpose, "LLM_TIMEOUT_SECONDS")
        elif failure.kind in UNAVAILABLE_KINDS:
            problem = problem_from_exception(exc, model, self._settings, f"a {purpose} call")
            log.error("The model cannot answer (%s): %s", purpose, problem.sentence)
        else:
            log.warning("LLM call failed (%s): %s", purpose, error)
        return failure

    def _too_slow(self, purpose: str, setting: str) -> None:
        """Tell the operator which wait the model overran (a retry may still follow)."""
        seconds = (
            self._settings.llm_round_seconds
            if setting == "LLM_ROUND_SECONDS"
            else self._settings.llm_timeout_seconds
        )
        log.warning("LLM call failed (%s): %s", purpose, too_slow(setting, seconds))

    async def _log(
        self,
        model: str,
        purpose: str,
        conversation_key: str | None,
        started: datetime,
        t0: float,
        turn: Turn,
        error: str | None,
        messages: list[dict[str, Any]],
        kind: str | None = None,
        payer: Payer = NOBODY,
    ) -> None:
        if self._metrics is not None:
            self._metrics.model_call(
                model,
                purpose,
                time.perf_counter() - t0,
                tokens_in=turn.usage.prompt_tokens,
                tokens_out=turn.usage.completion_tokens,
                error_kind=None if error is None else kind or "error",
            )
        await self._calls.record(
            CallTry(
                model=model,
                purpose=purpose,
                conversation_key=conversation_key,
                started_at=started,
                latency_ms=(time.perf_counter() - t0) * 1000,
                messages=messages,
                text=turn.text,
                tool_calls=turn.tool_calls,
                tokens_in=turn.usage.prompt_tokens,
                tokens_out=turn.usage.completion_tokens,
                tokens_cached=turn.usage.cached_tokens,
                error=error,
                guild_id=payer.guild_id,
                user_id=payer.user_id,
            )
        )


async def _close(response: Any) -> None:
    """Release a streamed response's connection (it may have been left mid-answer)."""
    close = getattr(response, "aclose", None)
    if close is not None:
        with contextlib.suppress(Exception):
            await close()
