"""The catch-up feature adds no tools and no prompt sections: it is one slash command (its
Discord part), whose one model call has no tools."""

from __future__ import annotations

from bot.handlers.builder import AppBuilder


def register(app: AppBuilder, deps: object) -> None:
    """Nothing for the agent: a catch-up never runs tools."""
