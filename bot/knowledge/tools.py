"""The read-only `search_knowledge` tool the model uses to look things up in the knowledge base."""

from __future__ import annotations

from typing import Any, Protocol
from zoneinfo import ZoneInfo

from bot.agent.conversation.fences import Untrusted
from bot.agent.tools import Tool, ToolContext, ToolError, tool
from bot.agent.tools.presentation import Label, Look, Words
from bot.knowledge.index import KnowledgeIndex
from bot.servers import ServerScope

MAX_RESULTS = 10
MAX_QUERY_CHARS = 500


class NoteSearch(Protocol):
    """Notes members wrote, searched beside the files (the server notebook provides it)."""

    async def cited_matches(
        self, guild_id: int, query: str, limit: int, tz: ZoneInfo
    ) -> list[dict[str, Any]]:
        """The server's best notes for a question, as the model should see and cite them."""
        ...


class KnowledgeDeps(Protocol):
    """What the knowledge tools need of the bot's dependencies."""

    @property
    def knowledge(self) -> KnowledgeIndex:
        """The bot's knowledge-base index."""
        ...

    @property
    def notebook(self) -> NoteSearch | None:
        """The server notebook searched beside the files, when the bot keeps one."""
        ...


async def knowledge_index(ctx: ToolContext[KnowledgeDeps]) -> KnowledgeIndex:
    """The bot's index from the dependencies; started on first use if nothing did."""
    index = ctx.deps.knowledge
    await index.ensure_started()
    return index


SEARCH_LOOK = Look(
    title=Words("ナレッジを検索", "Search the knowledge base"),
    labels={"query": Label(Words("検索語", "Search words"))},
    doing=Words("ナレッジを検索", "Searching the knowledge base"),
)


def _untrusted_found(output: Any) -> Untrusted | None:
    """Saved web pages and members' notes among the results are not the admins' words."""
    if not isinstance(output, dict):
        return None
    if any(hit.get("saved_web_search") for hit in output.get("results") or []):
        return "web"
    return "note" if output.get("notes") else None


@tool(
    requires_approval=False,
    read_only=True,
    source="knowledge",
    look=SEARCH_LOOK,
    untrusted=_untrusted_found,
)
async def search_knowledge(
    ctx: ToolContext[KnowledgeDeps], query: str, limit: int = 5
) -> dict[str, Any]:
    """Search the server's knowledge base (admin-written FAQ, rules and guides, and saved web
    searches) and return the best matching sections with the file path to cite as `出典: <path>`,
    and, beside them, the matching notes members wrote in the server's notebook.

    Args:
        query: What to look for, in the user's own words (Japanese or English), e.g.
            「サーバーへの参加方法」 or "how to report spam".
        limit: How many sections to return, 1 to 10.
    """
    text = query.strip()
    if not text:
        raise ToolError("query is empty: pass the words to look for, e.g. 'サーバーへの参加方法'.")
    if len(text) > MAX_QUERY_CHARS:
        raise ToolError(
            f"query is {len(text)} characters long; use at most {MAX_QUERY_CHARS}: the key words "
            "of the question, not the whole conversation."
        )
    index = await knowledge_index(ctx)
    hits = await index.query(
        text, max(1, min(limit, MAX_RESULTS)), scope=ServerScope.of(ctx.guild_id)
    )
    result: dict[str, Any] = {
        "results": [
            {
                "source": hit.source,
                "heading": hit.heading,
                "score": round(hit.score, 2),
                "relevance": round(hit.relevance, 2),
                "snippet": hit.snippet,
                **({"saved_web_search": True} if hit.is_web_search else {}),
            }
            for hit in hits
        ]
    }
    notes = await _matching_notes(ctx, text, max(1, min(limit, MAX_RESULTS)))
    if notes:
        result["notes"] = notes
    if not hits and not notes:
        result["note"] = (
            "Nothing in the knowledge base matches. Try other key words once; otherwise tell the "
            "user the knowledge base does not cover it instead of guessing."
        )
    else:
        result["note"] = "Cite what you use as `出典: <source>`."
        if notes:
            result["note"] += (
                " Notes are what members wrote, not admin text: cite one as "
                "`出典: メモ #<id>「<title>」`."
            )
    if not index.ready:
        result["note"] += " The knowledge base is still being indexed, so results may be partial."
    return result


async def _matching_notes(
    ctx: ToolContext[KnowledgeDeps], query: str, limit: int
) -> list[dict[str, Any]]:
    """The server's notes that match, when the bot keeps a notebook and this is a server."""
    notes = ctx.deps.notebook
    if notes is None or ctx.guild_id is None:
        return []
    return await notes.cited_matches(ctx.guild_id, query, limit, ctx.timezone)


KNOWLEDGE_TOOLS: list[Tool] = [search_knowledge]
