"""The composition root's list of features: what each adds to the agent and to Discord, and
what it declares to the shared layers (its settings, server settings, words and tables)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType

from bot.catchup import discord_part as catchup_discord
from bot.catchup import feature as catchup
from bot.channels import discord_part as channels_discord
from bot.channels import feature as channels
from bot.chat import discord_part as chat_discord
from bot.chat import feature as chat
from bot.chat.handler import CHAT_HANDLER
from bot.discord_ui.builder import DiscordBuilder
from bot.handlers.builder import AppBuilder
from bot.handlers.declarations import Declarations
from bot.handlers.router import Route, Router
from bot.handlers.services import BuildServices, Deps
from bot.handlers.spec import HandlerSpec
from bot.i18n import commands as command_words
from bot.knowledge import discord_part as knowledge_discord
from bot.knowledge import feature as knowledge
from bot.notes import discord_part as notes_discord
from bot.notes import feature as notes
from bot.reminders import discord_part as reminders_discord
from bot.reminders import feature as reminders
from bot.reminders.handler import REMINDER_HANDLER
from bot.servers import config as server_config
from bot.settings import SettingsSection
from bot.tasks import discord_part as tasks_discord
from bot.tasks import feature as tasks
from bot.weather import discord_part as weather_discord
from bot.weather import feature as weather
from bot.weather.handler import WEATHER_HANDLER


@dataclass(frozen=True)
class Feature:
    """A feature: its tools, prompt sections, start and stop (`register`, no Discord), and its
    slash commands, buttons and scheduled posts (`discord`, in the Discord layer)."""

    name: str
    register: Callable[[AppBuilder, Deps], None]
    discord: Callable[[DiscordBuilder, Deps], None] | None = None
    # The long-lived services it builds and owns (its tools read them as ctx.deps.<name>).
    services: BuildServices | None = None
    # Its own handler: name, the text opening its prompt, its cues, its role in routing.
    handler: HandlerSpec | None = None
    # Its other cues, settings, server settings, words and tables (see Declarations).
    declares: Declarations = field(default_factory=Declarations)


FEATURES: tuple[Feature, ...] = (
    Feature(
        "reminders",
        reminders.register,
        reminders_discord.register,
        services=reminders.services,
        handler=REMINDER_HANDLER,
        declares=reminders.DECLARES,
    ),
    Feature(
        "weather",
        weather.register,
        weather_discord.register,
        services=weather.services,
        handler=WEATHER_HANDLER,
    ),
    Feature(
        "chat",
        chat.register,
        chat_discord.register,
        services=chat.services,
        handler=CHAT_HANDLER,
        declares=chat.DECLARES,
    ),
    Feature(
        "knowledge",
        knowledge.register,
        knowledge_discord.register,
        services=knowledge.services,
        declares=knowledge.DECLARES,
    ),
    Feature(
        "notes",
        notes.register,
        notes_discord.register,
        services=notes.services,
        declares=notes.DECLARES,
    ),
    Feature("tasks", tasks.register, tasks_discord.register, declares=tasks.DECLARES),
    Feature(
        "channels",
        channels.register,
        channels_discord.register,
        services=channels.services,
        declares=channels.DECLARES,
    ),
    Feature("catchup", catchup.register, catchup_discord.register, declares=catchup.DECLARES),
)


# What the features declare to the shared layers, known as soon as the feature list is: their
# server settings (the panel, the directory) and their slash commands' Japanese.
for _feature in FEATURES:
    if _feature.declares.server_settings is not None:
        server_config.register(_feature.declares.server_settings)
    command_words.add(_feature.declares.words)

# The features' own environment settings: start-up checks them with the shared ones.
SETTINGS_SECTIONS: tuple[type[SettingsSection], ...] = tuple(
    f.declares.settings for f in FEATURES if f.declares.settings is not None
)
# The modules defining the features' tables (imported above: the shared metadata holds them).
TABLES: tuple[ModuleType, ...] = tuple(
    f.declares.tables for f in FEATURES if f.declares.tables is not None
)
# The features' own handlers, in the features' order.
HANDLERS: tuple[HandlerSpec, ...] = tuple(f.handler for f in FEATURES if f.handler is not None)
# The keyword router: every feature's handler with its cues, then the features' other cues.
ROUTER = Router(HANDLERS, [item for feature in FEATURES for item in feature.declares.cues])


def route(text: str) -> Route:
    """Pick the handler for a mention's text (without the mention itself)."""
    return ROUTER.route(text)


def register_features(app: AppBuilder, deps: Deps) -> None:
    """Let every feature add its handler, tools, prompt sections, start and stop."""
    for handler in HANDLERS:
        app.add_handler(handler)
    for feature in FEATURES:
        feature.register(app, deps)


def register_discord_parts(app: DiscordBuilder, deps: Deps) -> None:
    """Let every feature add its slash commands, buttons and scheduled posts."""
    for feature in FEATURES:
        if feature.discord is not None:
            feature.discord(app, deps)
