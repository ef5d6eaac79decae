"""What each feature adds to the agent: its services, tools and prompt sections."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.agent.llm import LLMClient
from bot.agent.loop import PromptInput
from bot.agent.tools import ToolRegistry
from bot.chat import (
    Tips,
    WordPool,
    chat_instructions,
    chat_tools,
    mention_topic,
    persona_text,
)
from bot.chat.tips import TOPICS_NEEDED
from bot.clock import Clock
from bot.handlers import router
from bot.handlers.catalog import HandlerParts
from bot.knowledge import (
    KNOWLEDGE_TOOLS,
    KnowledgeEditor,
    KnowledgeIndex,
    context_for,
    knowledge_instructions,
    web_tools,
)
from bot.knowledge.tools import NoteSearch
from bot.notes import NOTE_TOOLS, NOTES_INSTRUCTIONS, Notebook
from bot.notes.context import notes_context
from bot.reminders.buttons import ReminderButtons
from bot.reminders.instructions import reminder_instructions
from bot.reminders.service import ReminderService
from bot.reminders.tools import reminder_tools
from bot.settings import Settings
from bot.storage import Database
from bot.weather import WeatherService, weather_instructions, weather_tools
from bot.worker import in_worker

log = logging.getLogger(__name__)

# Recent server topics offered to the chat prompt.
CHAT_TOPICS_IN_PROMPT = 8


class ChangeRelay:
    """Forwards "a reminder's due time changed" to the delivery engine once it exists."""

    def __init__(self) -> None:
        self.listener: Callable[[datetime], None] | None = None

    def __call__(self, due_at: datetime) -> None:
        """Wake the delivery engine early if the new due time is sooner."""
        if self.listener is not None:
            self.listener(due_at)


@dataclass
class Features:
    """The long-lived services behind the tools; started and closed with the bot."""

    weather: WeatherService
    word_pool: WordPool
    tips: Tips
    reminders: ReminderService
    reminder_buttons: ReminderButtons
    reminder_changes: ChangeRelay
    knowledge: KnowledgeIndex
    kb_editor: KnowledgeEditor
    notebook: Notebook

    @property
    def services(self) -> dict[type[Any], Any]:
        """What tools may ask their ToolContext for, by type."""
        return {
            WeatherService: self.weather,
            WordPool: self.word_pool,
            Tips: self.tips,
            ReminderService: self.reminders,
            KnowledgeIndex: self.knowledge,
            Notebook: self.notebook,
            NoteSearch: self.notebook,
        }

    def start(self) -> None:
        """Start background work: the word pool's flush, the knowledge base's hot reload."""
        self.word_pool.start()
        self.knowledge.start()

    async def close(self) -> None:
        """Flush and close what holds resources."""
        await self.knowledge.stop()
        await self.word_pool.close()
        await self.weather.close()


def build_features(
    settings: Settings,
    clock: Clock,
    database: Database,
    llm: LLMClient,
    registry: ToolRegistry,
    parts: HandlerParts,
) -> Features:
    """Create every feature's services and register their tools and prompt sections."""
    changes = ChangeRelay()
    reminders = ReminderService(database.sessions, clock, settings, on_change=changes)
    tools = reminder_tools(changes)
    for item in tools:
        registry.register(item)
    parts.add_tools(router.REMINDER, [t.name for t in tools])
    parts.add_tools(router.GENERAL, [t.name for t in tools])

    async def reminder_section(prompt: PromptInput) -> str:
        return reminder_instructions(prompt.local_now, prompt.timezone)

    parts.add_section(router.REMINDER, reminder_section)

    weather = WeatherService(settings, clock)
    for item in weather_tools(weather):
        registry.register(item)
    parts.add_tools(router.WEATHER, [t.name for t in weather_tools(weather)])
    parts.add_tools(router.GENERAL, ["get_forecast"])

    async def weather_section(_: PromptInput) -> str:
        return weather_instructions(settings.weather_default_place)

    parts.add_section(router.WEATHER, weather_section)

    word_pool = WordPool(database.sessions, clock, settings)
    for item in chat_tools(word_pool):
        registry.register(item)
    parts.add_tools(router.CHAT, ["recent_topics"])

    async def complete(system: str, user: str) -> str:
        return await llm.complete(
            [{"role": "system", "content": system}, {"role": "user", "content": user}],
            purpose="tips",
        )

    tips = Tips(database.sessions, clock, settings, complete, word_pool)

    async def chat_section(prompt: PromptInput) -> str:
        # One read of the pool serves both the prompt's topics and the fallback tip topic.
        topics = await word_pool.recent_topics(max(CHAT_TOPICS_IN_PROMPT, TOPICS_NEEDED))
        return chat_instructions(
            await asyncio.to_thread(persona_text, settings),
            [t.word for t in topics[:CHAT_TOPICS_IN_PROMPT]],
            await tips.pick_tip_topic(topics),
            mention_topic=await in_worker(mention_topic, prompt.text),
        )

    parts.add_section(router.CHAT, chat_section)
    # Tools reach the index through Features.services (ctx.service(KnowledgeIndex)).
    knowledge = KnowledgeIndex.from_settings(settings, database.sessions, clock)
    searching = [*KNOWLEDGE_TOOLS, *web_tools(settings)]
    for item in searching:
        registry.register(item)
    for handler in (router.GENERAL, router.CHAT):
        parts.add_tools(handler, [t.name for t in searching])
    web_available = any(t.name == "web_search" for t in searching)

    async def knowledge_section(prompt: PromptInput) -> str:
        await knowledge.ensure_started()  # console mode never calls Features.start()
        excerpts = await context_for(knowledge, prompt.text, budget_chars=settings.kb_context_chars)
        return "\n\n".join(
            part
            for part in (knowledge_instructions(web_search_available=web_available), excerpts)
            if part
        )

    parts.add_section(router.GENERAL, knowledge_section)
    parts.add_section(router.CHAT, knowledge_section)
    notebook = add_notes(registry, parts, database, clock)
    return Features(
        weather=weather,
        word_pool=word_pool,
        tips=tips,
        reminders=reminders,
        reminder_buttons=ReminderButtons(reminders, clock),
        reminder_changes=changes,
        knowledge=knowledge,
        kb_editor=KnowledgeEditor.from_settings(knowledge, settings, database.sessions, clock),
        notebook=notebook,
    )


def add_notes(
    registry: ToolRegistry, parts: HandlerParts, database: Database, clock: Clock
) -> Notebook:
    """The server notebook: its tools and instructions in the general and chat handlers."""
    for item in NOTE_TOOLS:
        registry.register(item)

    notebook = Notebook(database.sessions, clock)

    async def notes_section(prompt: PromptInput) -> str:
        if prompt.guild_id is None:
            return NOTES_INSTRUCTIONS
        found = await notes_context(notebook, prompt.guild_id, prompt.text, prompt.timezone)
        return "\n\n".join(part for part in (NOTES_INSTRUCTIONS, found) if part)

    for handler in (router.GENERAL, router.CHAT):
        parts.add_tools(handler, [t.name for t in NOTE_TOOLS])
        parts.add_section(handler, notes_section)
    return notebook
