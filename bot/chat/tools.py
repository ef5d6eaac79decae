"""The read-only `recent_topics` tool the chat handler offers the model."""

from __future__ import annotations

from typing import Annotated, Any, Protocol

from pydantic import Field

from bot.agent.tools import Tool, ToolContext, tool
from bot.agent.tools.presentation import Look
from bot.chat.tips import Tips
from bot.chat.word_pool import Topic, WordPool
from bot.i18n import Text
from bot.servers.directory import ServerDirectory


class ChatDeps(Protocol):
    """What the chat feature needs of the bot's dependencies."""

    @property
    def word_pool(self) -> WordPool:
        """The live word pool (it also sees words not saved yet)."""
        ...

    @property
    def tips(self) -> Tips:
        """The どうでもいいTips, for the chat prompt's topic."""
        ...

    @property
    def servers(self) -> ServerDirectory:
        """Each server's settings (its persona and language)."""
        ...


def _as_output(topics: list[Topic]) -> dict[str, Any]:
    return {
        "topics": [{"word": t.word, "score": round(t.score, 2)} for t in topics],
        "note": "words people used recently in this server, strongest first",
    }


TOPICS_LOOK = Look(
    title=Text("最近の話題", "Recent topics"),
    doing=Text("最近の話題を確認", "Looking at recent topics"),
)


@tool(requires_approval=False, read_only=True, look=TOPICS_LOOK)
async def recent_topics(
    ctx: ToolContext[ChatDeps],
    limit: Annotated[int, Field(ge=1, le=30, description="how many, 1-30")] = 10,
) -> dict[str, Any]:
    """Words this server has been talking about lately, strongest first."""
    return _as_output(await ctx.deps.word_pool.recent_topics(limit, guild_id=ctx.guild_id))


CHAT_TOOLS: list[Tool] = [recent_topics]
