"""Prompt caching: the marker some providers need on a prompt's stable part, and the cached
prompt tokens the providers report.

OpenAI, DeepSeek, Gemini and local servers (llama.cpp, vLLM) reuse a request's longest known
prefix on their own. Anthropic's models cache only up to a `cache_control` marker: the prompt's
stable part gets one, so the tools and the stable part (which litellm sends first) are cached.
"""

from __future__ import annotations

from typing import Any

from bot.agent.llm.provider import import_litellm

CACHE_MARKER = {"type": "ephemeral"}
# Providers that serve Anthropic's models and take its cache markers through litellm.
_CLAUDE_HOSTS = {"anthropic", "bedrock", "vertex_ai"}


def takes_cache_markers(model: str) -> bool:
    """Whether the model caches only what a `cache_control` marker asks for (Anthropic's)."""
    try:
        _, provider, _, _ = import_litellm().get_llm_provider(model)
    except Exception:  # a model litellm cannot place: it gets plain messages
        return False
    return provider == "anthropic" or (provider in _CLAUDE_HOSTS and "claude" in model.lower())


def with_cache_marker(messages: list[dict[str, Any]], model: str) -> list[dict[str, Any]]:
    """The messages with the first system message (the stable part) marked for caching, for
    the models that need it; unchanged for the others."""
    if not messages or messages[0].get("role") != "system" or not takes_cache_markers(model):
        return messages
    content = messages[0].get("content")
    if not isinstance(content, str) or not content:
        return messages
    part = {"type": "text", "text": content, "cache_control": CACHE_MARKER}
    return [{**messages[0], "content": [part]}, *messages[1:]]


def cached_tokens(usage: Any) -> int:
    """The prompt tokens the provider read from its cache, from a response's usage: OpenAI's
    `prompt_tokens_details.cached_tokens` (litellm maps Anthropic's and others' there too),
    else Anthropic's `cache_read_input_tokens`."""
    details = _field(usage, "prompt_tokens_details")
    cached = _field(details, "cached_tokens") if details is not None else None
    if not cached:
        cached = _field(usage, "cache_read_input_tokens")
    try:
        return max(0, int(cached or 0))
    except (TypeError, ValueError):
        return 0


def _field(value: Any, name: str) -> Any:
    if isinstance(value, dict):
        return value.get(name)
    return getattr(value, name, None)
