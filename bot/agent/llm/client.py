"""The model behind the agent: streaming calls through litellm, error sentences, a call log."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.agent.conversation.messages import ToolCall
from bot.agent.llm.model_check import problem_from_exception
from bot.agent.llm.provider import LLMFailure, failure_from_exception, import_litellm
from bot.agent.tools.names import WireNames
from bot.runtime.clock import Clock
from bot.runtime.metrics import UNAVAILABLE_KINDS, Metrics
from bot.runtime.redaction import redact
from bot.settings import Settings
from bot.storage.agent import LLMCall

log = logging.getLogger(__name__)

__all__ = ["LLMClient", "LLMFailure", "TextChunk", "ToolCallName", "Turn", "Usage"]


@dataclass
class Usage:
    """Tokens spent, summed over the calls of one run."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0

    def add(self, other: Usage) -> None:
        """Accumulate another call's usage."""
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.calls += other.calls


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


StreamItem = TextChunk | ToolCallName | Turn


# The model a server's runs use (None: outside any server).
ModelSource = Callable[[int | None], Awaitable[str]]


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


class LLMClient:
    """Calls the chosen model through litellm and logs every call."""

    def __init__(
        self,
        settings: Settings,
        sessions: async_sessionmaker[AsyncSession] | None,
        clock: Clock,
        model_source: ModelSource | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self._settings = settings
        self._sessions = sessions
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

    def _params(self, model: str) -> dict[str, Any]:
        settings = self._settings
        params: dict[str, Any] = {
            "model": model,
            "timeout": settings.llm_timeout_seconds,
            "num_retries": settings.llm_num_retries,
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
    ) -> AsyncGenerator[StreamItem, None]:
        """Stream one model call: text chunks and tool-call names, then the whole Turn."""
        litellm = import_litellm()
        model = model or await self.current_model()
        started = self._clock.now()
        t0 = time.perf_counter()
        turn = Turn()
        error: str | None = None
        kind: str | None = None
        partial: dict[int, dict[str, str]] = {}
        # Providers accept only [a-zA-Z0-9_-]{1,64} as a function name: the names are mapped
        # here, and everything before and after this call sees the registered names.
        names = WireNames(t["function"]["name"] for t in tools or [] if "function" in t)
        try:
            response = await litellm.acompletion(
                messages=WireNames.messages(messages),
                tools=WireNames.tools(tools) if tools else None,
                stream=True,
                stream_options={"include_usage": True},
                **self._params(model),
            )
            async for chunk in response:
                usage = getattr(chunk, "usage", None)
                if usage:
                    turn.usage = Usage(
                        getattr(usage, "prompt_tokens", 0) or 0,
                        getattr(usage, "completion_tokens", 0) or 0,
                        1,
                    )
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
        except Exception as exc:
            error = redact(f"{type(exc).__name__}: {exc}")
            failure = self._failed(exc, model, purpose, error)
            kind = failure.kind
            raise failure from exc
        finally:
            turn.usage.calls = 1
            await self._log(
                model, purpose, conversation_key, started, t0, turn, error, messages, kind
            )
        yield turn

    async def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        purpose: str,
        conversation_key: str | None = None,
        model: str | None = None,
    ) -> str:
        """One non-streamed text answer (summaries, tips)."""
        litellm = import_litellm()
        model = model or await self.current_model()
        started = self._clock.now()
        t0 = time.perf_counter()
        turn = Turn()
        error: str | None = None
        kind: str | None = None
        try:
            response = await litellm.acompletion(
                messages=WireNames.messages(messages), **self._params(model)
            )
            turn.text = response.choices[0].message.content or ""
            usage = getattr(response, "usage", None)
            if usage:
                turn.usage = Usage(usage.prompt_tokens or 0, usage.completion_tokens or 0, 1)
            return turn.text
        except Exception as exc:
            error = redact(f"{type(exc).__name__}: {exc}")
            failure = self._failed(exc, model, purpose, error)
            kind = failure.kind
            raise failure from exc
        finally:
            await self._log(
                model, purpose, conversation_key, started, t0, turn, error, messages, kind
            )

    def _failed(self, exc: Exception, model: str, purpose: str, error: str) -> LLMFailure:
        """The member's sentence; the operator's goes to the log, at ERROR when the model
        itself cannot answer (key, name, server), since every member is affected."""
        failure = failure_from_exception(exc)
        if failure.kind in UNAVAILABLE_KINDS:
            problem = problem_from_exception(exc, model, self._settings)
            log.error("The model cannot answer (%s): %s", purpose, problem.sentence)
        else:
            log.warning("LLM call failed (%s): %s", purpose, error)
        return failure

    async def _log(
        self,
        model: str,
        purpose: str,
        conversation_key: str | None,
        started: Any,
        t0: float,
        turn: Turn,
        error: str | None,
        messages: list[dict[str, Any]],
        kind: str | None = None,
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
        if self._sessions is None:
            return
        debug = self._settings.llm_log_prompts
        row = LLMCall(
            model=model,
            purpose=purpose,
            conversation_key=conversation_key,
            started_at=started,
            latency_ms=(time.perf_counter() - t0) * 1000,
            tokens_in=turn.usage.prompt_tokens or None,
            tokens_out=turn.usage.completion_tokens or None,
            error=error,
            prompt=json.dumps(without_image_data(messages), ensure_ascii=False) if debug else None,
            response=(
                json.dumps(
                    {"text": turn.text, "tool_calls": [c.model_dump() for c in turn.tool_calls]},
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
