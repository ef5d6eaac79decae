"""Chit-chat: the persona, the word pool of recent topics and the どうでもいいTips."""

from bot.chat.feature import chat_context, chat_instructions
from bot.chat.persona import DEFAULT_PERSONA, persona_text
from bot.chat.tips import Tip, Tips
from bot.chat.tools import CHAT_TOOLS, ChatDeps
from bot.chat.word_pool import Topic, WordPool, load_topics
from bot.chat.words import extract_words, mention_topic
from bot.servers.config import in_quiet_hours

__all__ = [
    "CHAT_TOOLS",
    "DEFAULT_PERSONA",
    "ChatDeps",
    "Tip",
    "Tips",
    "Topic",
    "WordPool",
    "chat_context",
    "chat_instructions",
    "extract_words",
    "in_quiet_hours",
    "load_topics",
    "mention_topic",
    "persona_text",
]
