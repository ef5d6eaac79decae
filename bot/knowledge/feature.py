"""The knowledge feature: search and reading in the general and chat handlers (and web search,
when configured, in the general one); the outline of the pages and the instructions to cite them
in their prompts' stable part, the best excerpts in their context; and the index's hot reload."""

from __future__ import annotations

from bot.agent.conversation.fences import Untrusted, fence, neutral
from bot.agent.runs import PromptInput
from bot.handlers import router
from bot.handlers.builder import AppBuilder, Section
from bot.handlers.declarations import Declarations
from bot.handlers.services import Shared
from bot.handlers.spec import CONVERSATION
from bot.knowledge import table
from bot.knowledge.editor import KnowledgeEditor
from bot.knowledge.index import KnowledgeIndex
from bot.knowledge.outline import Outliner
from bot.knowledge.ranking import KnowledgeHit
from bot.knowledge.table import KnowledgeChange, KnowledgeDocument
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


# Small talk: the knowledge base in one line (the general handler gets the whole instructions).
CHAT_INSTRUCTIONS = (
    "サーバーのことは <knowledge> の抜粋か search_knowledge で確かめ、使ったファイルを回答の最後に "
    "`出典: <path>` で示す。無ければ推測しない。"
)


def knowledge_instructions(*, web_search_available: bool = False) -> str:
    """System-prompt text on using the knowledge base and citing it."""
    web = (
        "それでも無く最新の情報が要るなら web_search（ユーザーの承認が要る）で調べ、使った URL "
        "を番号付きで出典に示す。"
        if web_search_available
        else "それでも無ければ推測せず「ナレッジベースには載っていない」と伝える。"
    )
    return (
        "ナレッジベース（管理者が書いた knowledge_base/ の Markdown）:\n"
        "- <knowledge> の抜粋が最も信頼できる情報源。足りなければ search_knowledge で探す"
        "（also にページにありそうな言葉を日本語と英語で足す）。当たらないときや "
        "<knowledge_outline> に意味の合うページがあるときは read_knowledge(page, section) で"
        "読んでから答える。"
        + web
        + "\n- 使ったファイルを回答の最後に `出典: knowledge_base/faq.md` の形で書く（パスは"
        "抜粋、検索結果、read_knowledge の source のまま。英語なら `Source: <path>` も可）。\n"
        "- 「(saved web search)」付きは過去の web 検索の保存で、古いかもしれない。日付に触れて"
        "使う。"
    )


def register(app: AppBuilder, deps: KnowledgeDeps) -> None:
    """Offer the search and reading tools (web search in the general handler only), the instructions
    and outline, the excerpts that match the message, run the hot reload."""
    web = web_tools(app.settings)
    budget = app.settings.kb_context_chars
    knowledge = deps.knowledge

    def instructions(web_search_available: bool) -> Section:
        # The stable part: it changes only when the knowledge base changes (an outline of its
        # pages belongs here too), so a provider's prefix cache keeps it.
        text = knowledge_instructions(web_search_available=web_search_available)

        async def section(_: PromptInput) -> str:
            return text

        return section

    started = False

    async def ensure_started() -> None:
        # A prompt may come before the bot starts serving (the console): the first one starts
        # the hot reload if nothing has; from then on it runs (or was started), so later prompts
        # skip the check.
        nonlocal started
        if not started:
            await knowledge.ensure_started()
            started = True

    async def excerpts(prompt: PromptInput) -> str:
        await ensure_started()
        return await context_for(
            knowledge,
            prompt.text,
            budget_chars=budget,
            scope=ServerScope.of(prompt.guild_id),
            untrusted=prompt.untrusted,
        )

    outliner = Outliner(knowledge, app.settings.kb_outline_chars)

    async def outline(prompt: PromptInput) -> str:
        # The same text for every question while the files stay unchanged (when the whole
        # outline fits), so it sits in the prompt's stable part, after the instructions.
        await ensure_started()
        return await outliner.outline(
            prompt.text[:MAX_QUERY_CHARS], ServerScope.of(prompt.guild_id)
        )

    async def chat_instructions(_: PromptInput) -> str:
        return CHAT_INSTRUCTIONS

    app.add_tools(KNOWLEDGE_TOOLS, offered_in=[router.GENERAL])
    # Small talk keeps a lean prompt: search (and the excerpts that match) without the outline
    # and the reading tool; the router sends questions about the server to the general handler.
    app.add_tools(
        [t for t in KNOWLEDGE_TOOLS if t.name == "search_knowledge"], offered_in=[CONVERSATION]
    )
    # A web search costs credits and an approval: the general handler's answer to a question
    # the knowledge base cannot answer, never part of small talk.
    app.add_tools(web, offered_in=[router.GENERAL])
    app.add_section(instructions(bool(web)), handlers=[router.GENERAL])
    app.add_section(outline, handlers=[router.GENERAL])
    app.add_section(chat_instructions, handlers=[CONVERSATION])
    app.add_context(excerpts, handlers=[router.GENERAL, CONVERSATION])
    app.on_start(knowledge.start)
    app.on_close(knowledge.stop)
    app.forget_with_server(KnowledgeDocument, KnowledgeChange)


def services(shared: Shared) -> dict[str, object]:
    """The index of the knowledge base and its editor."""
    settings, sessions, clock = shared.settings, shared.database.sessions, shared.clock
    index = KnowledgeIndex.from_settings(settings, sessions, clock)
    return {
        "knowledge": index,
        "kb_editor": KnowledgeEditor.from_settings(index, settings, sessions, clock),
    }


# What the feature brings to the shared layers: its tables.
DECLARES = Declarations(tables=table)
