"""The knowledge feature: search (and web search when configured) in the general and chat
handlers, with the best excerpts in their prompts, and the index's hot reload."""

from __future__ import annotations

from bot.agent.runs import PromptInput
from bot.handlers import router
from bot.handlers.builder import AppBuilder
from bot.knowledge.context import context_for, knowledge_instructions
from bot.knowledge.tools import KNOWLEDGE_TOOLS, KnowledgeDeps
from bot.knowledge.web_search import web_tools
from bot.servers import ServerScope

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

    app.add_tools(searching, offered_in=HANDLERS)
    app.add_section(knowledge_section, handlers=HANDLERS)
    app.on_start(knowledge.start)
    app.on_close(knowledge.stop)
