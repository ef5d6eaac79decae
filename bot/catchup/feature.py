"""The catch-up feature adds no tools and no prompt sections: it is one slash command (its
Discord part), whose one model call has no tools."""

from __future__ import annotations

from bot.catchup import words
from bot.catchup.server_settings import SERVER_SETTINGS
from bot.catchup.settings import CatchupSettings
from bot.handlers.builder import AppBuilder
from bot.handlers.declarations import Declarations


def register(app: AppBuilder, deps: object) -> None:
    """Nothing for the agent: a catch-up never runs tools."""


# What the feature brings to the shared layers: CATCHUP_MAX_MESSAGES, each server's cap, and
# /otomo catchup's words.
DECLARES = Declarations(
    settings=CatchupSettings, server_settings=SERVER_SETTINGS, words=words.COMMAND_WORDS
)
