"""The knowledge feature: search (and web search when configured) in the general and chat
handlers, the best excerpts and the instructions to cite them in their prompts, and the index's
hot reload."""

from __future__ import annotations

from bot.agent.conversation.fences import Untrusted, fence, neutral
from bot.agent.runs import PromptInput
from bot.handlers import router
from bot.handlers.builder import AppBuilder
from bot.knowledge.index import KnowledgeIndex
from bot.knowledge.ranking import KnowledgeHit
from bot.knowledge.tools import KNOWLEDGE_TOOLS, KnowledgeDeps
from bot.knowledge.web_search import web_tools
from bot.servers import ServerScope
from bot.text.clip import clip

# Share (0-1) of the best BM25 score the question could reach: below it a section only shares
# a word or two with the question and would distract the model more than it helps.
DEFAULT_THRESHOLD = 0.25
# Sections considered for the prompt; the character budget usually admits fewer.
CONTEXT_CANDIDATES = 4
# A shorter remainder of the budget is not worth an excerpt.
MIN_EXCERPT_CHARS = 120
# What a saved web page's fence adds to its excerpt.
WEB_FENCE_CHARS = len("<web>\n\n</web>")
# Only the start of a long message is searched: janome reads ~32k characters a second.
MAX_QUERY_CHARS = 1000


def _label(hit: KnowledgeHit) -> str:
    kind = " (saved web search)" if hit.is_web_search else ""
    return f"{hit.source} — {hit.heading}{kind}"


async def context_for(
    index: KnowledgeIndex,
    query: str,
    *,
    budget_chars: int,
    scope: ServerScope = ServerScope.DM,
    threshold: float = DEFAULT_THRESHOLD,
    untrusted: set[Untrusted] | None = None,
) -> str:
    """The best matching sections as a system-prompt block with their paths, or "" if none.

    Only files the scope reads are used (a DM: the shared base). The block never exceeds
    budget_chars; each excerpt ends with `出典: <path>` so the model can
    copy the citation. A saved web search is fenced as a web page (and "web" is added to
    untrusted, when given): its text was written by strangers, not the admins.
    """
    if budget_chars <= 0 or not query.strip():
        return ""
    found = await index.query(query[:MAX_QUERY_CHARS], CONTEXT_CANDIDATES, scope=scope)
    hits = [hit for hit in found if hit.relevance >= threshold]
    if not hits:
        return ""
    opening = "<knowledge>\n"
    closing = "</knowledge>"
    remaining = budget_chars - len(opening) - len(closing)
    entries: list[str] = []
    for number, hit in enumerate(hits, start=1):
        header = f"[{number}] {neutral(_label(hit))}\n"
        footer = f"\n出典: {neutral(hit.source)}\n\n"
        room = remaining - len(header) - len(footer)
        if room < MIN_EXCERPT_CHARS:
            break
        if hit.is_web_search:
            text = fence("web", hit.text, limit=room - WEB_FENCE_CHARS)
            if untrusted is not None:
                untrusted.add("web")
        else:
            text = clip(neutral(hit.text), room)
        entry = header + text + footer
        entries.append(entry)
        remaining -= len(entry)
    if not entries:
        return ""
    return opening + "".join(entries).rstrip("\n") + "\n" + closing


def knowledge_instructions(*, web_search_available: bool = False) -> str:
    """System-prompt text on using the knowledge base and citing it."""
    web = (
        "それでも見つからず最新の情報が必要なら、web_search ツールで調べられる（実行にはユーザーの"
        "承認が要る）。web 検索の結果を使ったら番号付きで URL を出典として示す。"
        if web_search_available
        else "それでも見つからなければ、推測で答えず「ナレッジベースには載っていない」と伝える。"
    )
    return (
        "サーバーのナレッジベース（管理者が書いた knowledge_base/ 以下の Markdown）について:\n"
        "- <knowledge> ブロックの抜粋が与えられたら、それを最も信頼できる情報源として答える。"
        "抜粋で答えられるなら検索ツールを呼ばない。\n"
        "- 抜粋が無いか足りないときは search_knowledge ツールで探す。" + web + "\n"
        "- ナレッジベースを使って答えたら、回答の最後に使ったファイルを "
        "`出典: knowledge_base/faq.md` の形で書く（複数なら読点で区切る）。パスは抜粋や検索結果"
        "に書かれたものをそのまま使い、作らない。\n"
        "- 「(saved web search)」と付いた抜粋は過去の web 検索の保存で、古い可能性がある。"
        "日付に触れて使う。\n"
        "Answer in the user's language; the citation format stays `出典: <path>` "
        "(in English replies `Source: <path>` is also fine)."
    )


HANDLERS = (router.GENERAL, router.CHAT)


def register(app: AppBuilder, deps: KnowledgeDeps) -> None:
    """Offer the search tools, add the instructions and excerpts, run the hot reload."""
    searching = [*KNOWLEDGE_TOOLS, *web_tools(app.settings)]
    web_available = any(t.name == "web_search" for t in searching)
    budget = app.settings.kb_context_chars
    knowledge = deps.knowledge

    async def knowledge_section(prompt: PromptInput) -> str:
        await knowledge.ensure_started()  # a prompt may come before the bot starts serving
        excerpts = await context_for(
            knowledge,
            prompt.text,
            budget_chars=budget,
            scope=ServerScope.of(prompt.guild_id),
            untrusted=prompt.untrusted,
        )
        return "\n\n".join(
            part
            for part in (knowledge_instructions(web_search_available=web_available), excerpts)
            if part
        )

    app.add_tools(searching, offered_in=HANDLERS)
    app.add_section(knowledge_section, handlers=HANDLERS)
    app.on_start(knowledge.start)
    app.on_close(knowledge.stop)
