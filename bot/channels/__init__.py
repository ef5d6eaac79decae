"""Channels that listen, and a voice per channel: where Otomo answers questions without a
mention (with a cool-down), and a channel's own persona on top of the server's."""

from bot.channels.feature import CHANNEL_PERSONA_MAX_CHARS, ChannelVoices
from bot.channels.heuristic import looks_like_a_question

__all__ = ["CHANNEL_PERSONA_MAX_CHARS", "ChannelVoices", "looks_like_a_question"]
