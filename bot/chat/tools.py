"""The read-only `recent_topics` tool the chat handler offers the model."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from bot.agent.tools import Tool, ToolContext, tool
from bot.chat.word_pool import Topic, WordPool, load_topics


def _as_output(topics: list[Topic]) -> dict[str, Any]:
    return {
        "topics": [{"word": t.word, "score": round(t.score, 2)} for t in topics],
        "note": "words people used recently in this server, strongest first",
    }


def chat_tools(pool: WordPool | None = None) -> list[Tool]:
    """The chat tools; bound to the live WordPool they also see words not yet saved."""

    @tool(requires_approval=False)
    async def recent_topics(
        ctx: ToolContext,
        limit: Annotated[
            int, Field(ge=1, le=30, description="how many topics to return (1-30)")
        ] = 10,
    ) -> dict[str, Any]:
        """Words people have been talking about recently in this server, strongest first.
        Use it to pick a topic for small talk or a どうでもいいTips."""
        if pool is not None:
            return _as_output(await pool.recent_topics(limit))
        return _as_output(await load_topics(ctx.sessions, ctx.now(), limit))

    return [recent_topics]


# Unbound: reads the saved pool only. The app should register chat_tools(pool).
CHAT_TOOLS: list[Tool] = chat_tools()
