"""The chat feature: the persona in the chat prompt (its instructions' text), the server's topics
in its context, and recent_topics."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from bot.agent.llm.client import Payer
from bot.agent.runs import PromptInput
from bot.chat import table
from bot.chat.handler import CHAT
from bot.chat.persona import persona_text
from bot.chat.table import TipRecord, WordPoolEntry
from bot.chat.tips import TOPICS_NEEDED, Tips
from bot.chat.tools import CHAT_TOOLS, ChatDeps
from bot.chat.word_pool import WordPool
from bot.chat.words import mention_topic
from bot.handlers.builder import AppBuilder
from bot.handlers.declarations import Declarations
from bot.handlers.services import Shared
from bot.runtime.worker import in_worker

# Recent server topics offered to the chat prompt: they change with the talk, so they ride in
# the context of every chat request (recent_topics gives more when asked).
CHAT_TOPICS_IN_PROMPT = 5

# A server whose admins chose English as its language.
ENGLISH_SERVER = (
    "This server speaks English: answer in English unless the member writes in Japanese."
)


def chat_instructions(persona: str, language: str = "ja") -> str:
    """The chat handler's stable instructions: the persona and the Tips habit (the topics that
    feed it come with the context, see chat_context)."""
    parts = [
        persona.strip(),
        "相手が暇そうなとき、話題がほしそうなとき、Tipsを頼まれたときは『どうでもいいTips』と"
        "して豆知識をひとつだけ添えます。題材は「この発言の話題」についての豆知識、確かなものが"
        "思いつかなければ「おすすめの題材」の豆知識（どちらも無ければ会話の話題から）。確かな事実"
        "だけを書き、自信がなければ別のよく知られた事実にします。最近よく出る言葉は、話に合う"
        "ときだけ自然に触れます。",
    ]
    if language == "en":
        parts.append(ENGLISH_SERVER)
    return "\n\n".join(parts)


def chat_context(
    topics: Sequence[str] = (), tip_topic: str | None = None, mention_topic: str | None = None
) -> str:
    """The chat prompt's context: recent server topics and what a tip would be about.

    A tip is about what the member just talked about (mention_topic) when a true one fits, else
    about tip_topic from the server's word pool. The topics are given inline (read from the
    word pool by the handler) so that a plain chat reply needs a single model call.
    """
    parts = []
    if topics:
        parts.append("最近よく出る言葉: " + "、".join(f"「{t}」" for t in topics))
    if mention_topic:
        parts.append(f"この発言の話題: 「{mention_topic}」")
    if tip_topic:
        parts.append(f"おすすめの題材: 「{tip_topic}」")
    return "\n".join(parts)


def register(app: AppBuilder, deps: ChatDeps) -> None:
    """Offer recent_topics, add the chat instructions and the server's topics; the word pool
    flushes while running."""
    settings = app.settings

    async def chat_section(prompt: PromptInput) -> str:
        server = deps.servers.config(prompt.guild_id)
        return chat_instructions(
            await asyncio.to_thread(persona_text, settings, None, server.persona),
            language=server.language,
        )

    async def chat_topics(prompt: PromptInput) -> str:
        # One read of the pool serves both the prompt's topics and the fallback tip topic.
        topics = await deps.word_pool.recent_topics(
            max(CHAT_TOPICS_IN_PROMPT, TOPICS_NEEDED), guild_id=prompt.guild_id
        )
        return chat_context(
            [t.word for t in topics[:CHAT_TOPICS_IN_PROMPT]],
            await deps.tips.pick_tip_topic(topics, guild_id=prompt.guild_id),
            mention_topic=await in_worker(mention_topic, prompt.text),
        )

    app.add_tools(CHAT_TOOLS, offered_in=[CHAT])
    app.add_section(chat_section, handlers=[CHAT])
    app.add_context(chat_topics, handlers=[CHAT])
    app.on_start(deps.word_pool.start)
    app.on_close(deps.word_pool.close)
    app.forget_with_server(WordPoolEntry, TipRecord)


def services(shared: Shared) -> dict[str, object]:
    """The word pool (its channels per server) and the tips drawn from it."""
    settings, sessions, clock = shared.settings, shared.database.sessions, shared.clock
    servers, llm = shared.servers, shared.llm
    word_pool = WordPool(sessions, clock, settings, health=shared.database.health)
    word_pool.channels_per_server(lambda guild: servers.config(guild).word_pool_channels)

    async def complete(system: str, user: str, guild_id: int | None) -> str:
        # A server's tip counts against its budget and shows in its usage.
        return await llm.complete(
            [{"role": "system", "content": system}, {"role": "user", "content": user}],
            purpose="tips",
            payer=Payer(guild_id),
        )

    return {"word_pool": word_pool, "tips": Tips(sessions, clock, settings, complete, word_pool)}


# What the feature brings to the shared layers: its tables.
DECLARES = Declarations(tables=table)
