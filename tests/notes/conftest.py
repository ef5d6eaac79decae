"""Fixtures: a notebook on the test database, and a tool context in a server channel."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bot.agent.tools import ToolContext
from bot.notes import Notebook
from bot.runtime.clock import ManualClock
from bot.settings import Settings
from bot.storage import Database

GUILD = 100
OTHER_GUILD = 200
CHANNEL = 300
HANA = 1
TARO = 2
TOKYO = ZoneInfo("Asia/Tokyo")


@pytest.fixture
def notebook(database: Database, clock: ManualClock) -> Notebook:
    return Notebook(database.sessions, clock)


@dataclass(frozen=True)
class NotesOnly:
    """The part of the bot's dependencies the note tools use."""

    notebook: Notebook


@pytest.fixture
def make_ctx(
    database: Database,
    clock: ManualClock,
    notebook: Notebook,
    make_settings: Callable[..., Settings],
) -> Callable[..., ToolContext]:
    """A ToolContext of a member in a server channel, with the notebook injected."""

    def build(**overrides: Any) -> ToolContext:
        values: dict[str, Any] = {
            "user_id": HANA,
            "user_name": "hana",
            "guild_id": GUILD,
            "channel_id": CHANNEL,
            "clock": clock,
            "sessions": database.sessions,
            "settings": make_settings(),
            "timezone": TOKYO,
            "deps": NotesOnly(notebook),
        }
        values.update(overrides)
        return ToolContext(**values)

    return build
