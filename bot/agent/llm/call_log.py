"""The model call log (`llm_calls`): one row per try, with its latency, tokens and error."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.agent.conversation.messages import ToolCall
from bot.storage.agent import LLMCall

log = logging.getLogger(__name__)


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
