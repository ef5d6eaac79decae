"""The `web_search` tool: Tavily search, numbered sources, saved back into the knowledge base."""

from __future__ import annotations

import asyncio
import importlib
import logging
from types import ModuleType
from typing import Any

import httpx

from bot.agent.tools import Tool, ToolContext, ToolError, tool
from bot.agent.tools.presentation import Label, Look
from bot.i18n import Language, Text
from bot.knowledge.changes import ChangeAction, record_change
from bot.knowledge.files import atomic_write, signature_of
from bot.knowledge.places import Place
from bot.knowledge.tools import KnowledgeDeps, knowledge_index
from bot.knowledge.web_archive import WebResult, archive_path, render_archive
from bot.members.permissions import Person
from bot.settings import Settings
from bot.text.clip import clip

log = logging.getLogger(__name__)

MAX_RESULTS = 5
MAX_QUERY_CHARS = 300
# What the model sees of each page; the saved file keeps more.
SNIPPET_CHARS = 300
REQUEST_TIMEOUT_SECONDS = 20.0

_UNREACHABLE = (
    "The web search service (Tavily) could not be reached or failed ({detail}). Tell the user "
    "web search is unavailable right now and answer from what you know, saying it may be "
    "out of date."
)


async def _tavily_errors() -> ModuleType:
    """tavily-python, imported at the first search and off the event loop: it brings requests
    (about 8 MB and 0.1 s), which a bot without web search never needs."""
    return await asyncio.to_thread(importlib.import_module, "tavily.errors")


def _api_key(settings: Settings) -> str | None:
    key = settings.tavily_api_key.get_secret_value().strip() if settings.tavily_api_key else ""
    return key or None


async def _search(settings: Settings, query: str) -> dict[str, Any]:
    """Call Tavily's /search at `settings.tavily_api_base`, turning its errors into ToolErrors."""
    key = _api_key(settings)
    if key is None:
        raise ToolError("Web search is not configured on this bot; answer without it.")
    errors = await _tavily_errors()
    from tavily import AsyncTavilyClient  # loaded with its errors above

    try:
        # Building the client loads the TLS certificates (~0.1 s): not on the event loop.
        searcher = await asyncio.to_thread(
            AsyncTavilyClient, api_key=key, api_base_url=settings.tavily_api_base
        )
        async with searcher as client:
            response: dict[str, Any] = await client.search(
                query,
                max_results=MAX_RESULTS,
                include_answer=True,
                search_depth="basic",
                timeout=REQUEST_TIMEOUT_SECONDS,
            )
    except (errors.InvalidAPIKeyError, errors.MissingAPIKeyError):
        log.error("Tavily rejected TAVILY_API_KEY; web search fails until an operator fixes it")
        raise ToolError(
            "Web search is misconfigured (the service rejected the bot's API key). Tell the user "
            "web search is unavailable and an admin needs to fix TAVILY_API_KEY; answer without it."
        ) from None
    except errors.UsageLimitExceededError:
        raise ToolError(
            "Web search is rate-limited or out of credits right now. Tell the user to try again "
            "later and answer from what you know, saying it may be out of date."
        ) from None
    except errors.ForbiddenError as exc:
        raise ToolError(_UNREACHABLE.format(detail=f"access refused: {exc}")) from None
    except errors.BadRequestError as exc:
        raise ToolError(
            f"The search service rejected this query ({exc}). Retry once with a shorter query "
            "of plain key words."
        ) from None
    except (errors.TimeoutError, httpx.TimeoutException):
        raise ToolError(_UNREACHABLE.format(detail="it timed out")) from None
    except httpx.HTTPStatusError as exc:
        raise ToolError(_UNREACHABLE.format(detail=f"HTTP {exc.response.status_code}")) from None
    except (httpx.HTTPError, ValueError) as exc:
        # ValueError: a 200 whose body is not JSON (a proxy's error page).
        raise ToolError(_UNREACHABLE.format(detail=type(exc).__name__)) from None
    return response


def _results(response: dict[str, Any]) -> list[WebResult]:
    results: list[WebResult] = []
    for item in response.get("results") or []:
        if not isinstance(item, dict) or not item.get("url"):
            continue
        results.append(
            WebResult(
                number=len(results) + 1,
                title=str(item.get("title") or item["url"]),
                url=str(item["url"]),
                content=str(item.get("content") or ""),
            )
        )
        if len(results) == MAX_RESULTS:
            break
    return results


async def _save(
    ctx: ToolContext[KnowledgeDeps], query: str, answer: str | None, results: list[WebResult]
) -> str | None:
    """Write the search into the server's own `servers/<id>/web_search/`, log it, index it;
    return the source. A DM's search is not kept: a DM has no knowledge of its own, and the
    shared base is the operator's."""
    if ctx.guild_id is None:
        return None
    index = await knowledge_index(ctx)
    day = ctx.now().astimezone(ctx.settings.timezone).date()
    place = Place(ctx.guild_id, archive_path(query, day))
    relative = place.full_path
    target = index.root / relative
    text = render_archive(query, day, answer, results, ctx.settings.kb_max_file_bytes)
    data = text.encode("utf-8")
    previous = await asyncio.to_thread(signature_of, target)
    await asyncio.to_thread(atomic_write, target, data)
    await record_change(
        ctx.sessions,
        guild_id=place.owner,
        path=place.path,
        action=ChangeAction.WEB_SEARCH,
        editor=Person(ctx.user_id, ctx.user_name),
        size_before=previous.size if previous else None,
        size_after=len(data),
        now=ctx.now(),
    )
    await index.refresh_file(relative)
    return index.source_of(relative)


def _snippet(content: str) -> str:
    text = " ".join(content.split())
    return clip(text, SNIPPET_CHARS)


def _found(output: Any, language: Language) -> str | None:
    count = len(output.get("results") or []) if isinstance(output, dict) else 0
    if language == "ja":
        return f"{count}件の結果が見つかりました。" if count else "何も見つかりませんでした。"
    return f"Found {count} results." if count != 1 else "Found 1 result."


WEB_LOOK = Look(
    title=Text("ウェブを検索", "Search the web"),
    labels={"query": Label(Text("検索語", "Search words"))},
    summary=_found,
)


@tool(requires_approval=True, timeout=60, source="web", look=WEB_LOOK, untrusted="web")
async def web_search(ctx: ToolContext[KnowledgeDeps], query: str) -> dict[str, Any]:
    """Search the web for what the knowledge base lacks (costs credits; the member approves):
    numbered sources and a short answer, also saved to the knowledge base.

    Args:
        query: a few key words, in the language likeliest to find good pages.
    """
    text = " ".join(query.split())
    if not text:
        raise ToolError("query is empty: pass the key words to search for.")
    if len(text) > MAX_QUERY_CHARS:
        raise ToolError(
            f"query is {len(text)} characters; use at most {MAX_QUERY_CHARS} characters of key "
            "words."
        )
    response = await _search(ctx.settings, text)
    results = _results(response)
    answer = response.get("answer")
    answer = answer.strip() if isinstance(answer, str) and answer.strip() else None
    if not results:
        return {
            "answer": answer,
            "results": [],
            "note": "The web search found nothing. Tell the user, or retry once with other words.",
        }
    saved = None
    try:
        saved = await _save(ctx, text, answer, results)
    except OSError as exc:  # a full disk must not cost the user the answer they approved
        log.warning("could not save web search %r to the knowledge base: %s", text, exc)
    output: dict[str, Any] = {
        "answer": answer,
        "results": [
            {"n": r.number, "title": r.title, "url": r.url, "snippet": _snippet(r.content)}
            for r in results
        ],
        "note": "Cite the sources you use by number with their URL, e.g. `[1] https://…`.",
    }
    if saved:
        output["saved_to"] = saved
    return output


def web_tools(settings: Settings) -> list[Tool]:
    """The web-search tools to offer: none without TAVILY_API_KEY."""
    return [web_search] if _api_key(settings) else []
