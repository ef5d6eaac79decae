"""The knowledge feature: search, reading (and web search when configured) in the general and
chat handlers; the best excerpts, the knowledge base's outline and the instructions to cite them
in their prompts; and the index's hot reload."""

from __future__ import annotations

from bot.agent.runs import PromptInput
from bot.handlers import router
from bot.handlers.builder import AppBuilder
from bot.knowledge.index import KnowledgeIndex
from bot.knowledge.outline import Outliner
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
) -> str:
    """The best matching sections as a system-prompt block with their paths, or "" if none.

    Only files the scope reads are used (a DM: the shared base). The block never exceeds
    budget_chars; each excerpt ends with `出典: <path>` so the model can
    copy the citation.
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
        header = f"[{number}] {_label(hit)}\n"
        footer = f"\n出典: {hit.source}\n\n"
        room = remaining - len(header) - len(footer)
        if room < MIN_EXCERPT_CHARS:
            break
        text = clip(hit.text, room)
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
        "- 抜粋が無いか足りないときは search_knowledge ツールで探す。query はユーザーの言葉のまま、"
        "also にはページに書かれていそうな言葉を日本語と英語の両方で足す"
        '（例: 「友達呼びたい」→ also: ["招待リンク", "invite link"]）。\n'
        "- 質問とページの言葉が違うことは多い。検索で良く当たらない（note が Nothing matched well "
        "と言う）ときや、<knowledge_outline> に意味の合うページがあるときは、そのページと節を "
        "read_knowledge(page, section) で読んでから答える。" + web + "\n"
        "- ナレッジベースを使って答えたら、回答の最後に使ったファイルを "
        "`出典: knowledge_base/faq.md` の形で書く（複数なら読点で区切る）。パスは抜粋、検索結果、"
        "read_knowledge の source に書かれたものをそのまま使い、作らない。\n"
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
            knowledge, prompt.text, budget_chars=budget, scope=ServerScope.of(prompt.guild_id)
        )
        return "\n\n".join(
            part
            for part in (knowledge_instructions(web_search_available=web_available), excerpts)
            if part
        )

    outliner = Outliner(knowledge, app.settings.kb_outline_chars)

    async def outline_section(prompt: PromptInput) -> str:
        # Its own section: the same text for every question while the files stay unchanged
        # (when the whole outline fits), so it can sit in the prompt's cached part.
        await knowledge.ensure_started()
        return await outliner.outline(
            prompt.text[:MAX_QUERY_CHARS], ServerScope.of(prompt.guild_id)
        )

    app.add_tools(searching, offered_in=HANDLERS)
    # The outline first: it is stable, the excerpts after it change with every question.
    app.add_section(outline_section, handlers=HANDLERS)
    app.add_section(knowledge_section, handlers=HANDLERS)
    app.on_start(knowledge.start)
    app.on_close(knowledge.stop)
