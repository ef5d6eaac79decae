"""Features register themselves: which handler offers which tool, and what starts and stops."""

from __future__ import annotations

from pathlib import Path

from bot.agent.llm.client import LLMClient
from bot.agent.tools import ToolRegistry
from bot.app.features import FEATURES, register_features
from bot.app.services import Deps, build_deps
from bot.chat.handler import CHAT
from bot.handlers.builder import AppBuilder
from bot.handlers.router import GENERAL
from bot.reminders.handler import REMINDER
from bot.runtime.clock import ManualClock
from bot.settings import Settings
from bot.storage import Database
from bot.weather.handler import WEATHER

REMINDER_TOOLS = [
    "create_reminder",
    "list_reminders",
    "cancel_reminder",
    "edit_reminder",
    "snooze_reminder",
]
NOTE_TOOLS = ["write_note", "read_note", "list_notes"]
TASK_TOOLS = ["create_task", "update_task", "delete_task", "list_tasks"]


def _deps(settings: Settings, database: Database, clock: ManualClock) -> Deps:
    return build_deps(settings, clock, database, LLMClient(settings, database.sessions, clock))


def _registered(settings: Settings, deps: Deps) -> AppBuilder:
    app = AppBuilder(settings, ToolRegistry())
    register_features(app, deps)
    return app


async def test_each_handler_offers_the_tools_of_the_features_that_chose_it(
    database: Database, clock: ManualClock, tmp_path: Path
) -> None:
    settings = Settings(knowledge_base_dir=tmp_path)
    handlers = _registered(settings, _deps(settings, database, clock)).handlers()

    assert list(handlers[REMINDER].tools) == REMINDER_TOOLS
    assert list(handlers[WEATHER].tools) == ["get_forecast"]
    assert list(handlers[GENERAL].tools) == [
        *REMINDER_TOOLS,
        "get_forecast",
        "search_knowledge",
        "read_knowledge",
        *NOTE_TOOLS,
        *TASK_TOOLS,
    ]
    # Small talk searches the knowledge base; the notebook's words, the outline and scheduled
    # work go to the general handler.
    assert list(handlers[CHAT].tools) == ["recent_topics", "search_knowledge"]


async def test_web_search_is_registered_only_with_a_tavily_key(
    database: Database, clock: ManualClock, tmp_path: Path
) -> None:
    plain = Settings(knowledge_base_dir=tmp_path)
    keyed = Settings(knowledge_base_dir=tmp_path, tavily_api_key="tvly-test")
    without = _registered(plain, _deps(plain, database, clock))
    with_key = _registered(keyed, _deps(keyed, database, clock))

    assert without.registry.get("web_search") is None
    assert "web_search" not in without.handlers()[GENERAL].tools
    assert with_key.registry.get("web_search") is not None
    assert "web_search" in with_key.handlers()[GENERAL].tools
    # A search that costs credits and an approval is no part of small talk.
    assert "web_search" not in with_key.handlers()[CHAT].tools


async def test_every_registered_tool_is_offered_by_some_handler(
    database: Database, clock: ManualClock, tmp_path: Path
) -> None:
    settings = Settings(knowledge_base_dir=tmp_path, tavily_api_key="tvly-test")
    app = _registered(settings, _deps(settings, database, clock))
    offered = {name for handler in app.handlers().values() for name in handler.tools}

    assert set(app.registry.names()) == offered


def test_every_feature_has_a_discord_part_and_a_unique_name() -> None:
    names = [feature.name for feature in FEATURES]

    assert names == [
        "reminders",
        "weather",
        "chat",
        "knowledge",
        "notes",
        "tasks",
        "channels",
        "catchup",
    ]
    assert all(feature.discord is not None for feature in FEATURES)


async def test_what_features_start_closes_in_the_reverse_order() -> None:
    app = AppBuilder(Settings(), ToolRegistry())
    happened: list[str] = []
    for name in ("first", "second"):

        async def close(name: str = name) -> None:
            happened.append(f"close {name}")

        app.on_start(lambda name=name: happened.append(f"start {name}"))
        app.on_close(close)
    lifecycle = app.lifecycle()

    lifecycle.start()
    await lifecycle.close()

    assert happened == ["start first", "start second", "close second", "close first"]
