"""A schedule that needs the model each time reaches a handler offering the task tools."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.agent.tools import ToolRegistry
from bot.app.features import route
from bot.handlers.builder import AppBuilder
from bot.reminders import feature as reminders
from bot.settings import Settings
from bot.tasks import feature as tasks


@pytest.mark.parametrize(
    "text",
    [
        "毎朝7時に今日の天気とイベントをまとめて #general に投稿して",
        "平日の8時半に今日のリマインドを一覧にしてDMして",
        "every Friday at 18:00 summarise this week's notes here",
    ],
)
def test_asking_for_a_scheduled_task_reaches_the_task_tools(
    text: str, make_settings: Callable[..., Settings]
) -> None:
    app = AppBuilder(make_settings(), ToolRegistry())
    reminders.register(app, None)  # type: ignore[arg-type]
    tasks.register(app, None)
    handlers = app.handlers()
    chosen = route(text)
    offered = handlers[chosen.handler].tools
    assert {"create_task", "update_task", "delete_task", "list_tasks"} <= set(offered)
