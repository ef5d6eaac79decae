"""The handlers the agent answers with, and their runner-up variants."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from bot.agent.runs import PromptInput
from bot.app.features import HANDLERS
from bot.chat.handler import CHAT
from bot.handlers.catalog import HandlerParts, build_handlers
from bot.handlers.router import GENERAL
from bot.reminders.handler import REMINDER
from bot.weather.handler import WEATHER

TOKYO = ZoneInfo("Asia/Tokyo")
PROMPT = PromptInput(
    text="暇だなー",
    user_name="hanako",
    local_now=datetime(2026, 12, 2, 9, 0, tzinfo=TOKYO),
    timezone=TOKYO,
    guild_id=1,
    channel_id=2,
)


def _parts() -> HandlerParts:
    parts = HandlerParts(list(HANDLERS))
    parts.add_tools(REMINDER, ["create_reminder", "list_reminders"])
    parts.add_tools(WEATHER, ["get_forecast"])
    parts.add_tools(CHAT, ["recent_topics", "search_knowledge"])
    parts.add_tools(GENERAL, ["search_knowledge", "create_reminder", "get_forecast"])
    return parts


def test_a_runner_up_variant_offers_the_runner_ups_tools_after_the_chosen_handlers() -> None:
    handlers = build_handlers(_parts())

    assert handlers["chat+reminder"].tools == (
        "recent_topics",
        "search_knowledge",
        "create_reminder",
        "list_reminders",
    )
    assert handlers["reminder+weather"].tools == (
        "create_reminder",
        "list_reminders",
        "get_forecast",
    )
    assert handlers["weather+reminder"].tools == (
        "get_forecast",
        "create_reminder",
        "list_reminders",
    )


async def test_a_runner_up_variant_keeps_the_chosen_handlers_name_and_prompt() -> None:
    handlers = build_handlers(_parts())
    variant, chosen = handlers["chat+weather"], handlers[CHAT]

    assert variant.name == CHAT  # external tools scoped to chat, and the call log, see chat
    assert await variant.instructions(PROMPT) == await chosen.instructions(PROMPT)


def test_general_has_no_runner_up_variant() -> None:
    handlers = build_handlers(_parts())

    assert not [key for key in handlers if key.startswith(f"{GENERAL}+")]
    assert set(handlers) == {
        GENERAL,
        REMINDER,
        WEATHER,
        CHAT,
        "chat+reminder",
        "chat+weather",
        "reminder+weather",
        "weather+reminder",
    }
