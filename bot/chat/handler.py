"""The chat handler: small talk, and remarks that match no handler's cues."""

from __future__ import annotations

from bot.chat.cues import CHAT, CHAT_CUES
from bot.handlers.spec import HandlerSpec

__all__ = ["CHAT", "CHAT_HANDLER", "CHAT_TEXT"]

CHAT_TEXT = "Chat playfully and briefly, like a friend in the server."

CHAT_HANDLER = HandlerSpec(CHAT, CHAT_TEXT, CHAT_CUES, role="conversation")
