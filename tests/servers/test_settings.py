"""Each server's settings: the environment's values until its admins change one, a change seen
by every process, and nothing of one server in another."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import time, timedelta

import pytest

from bot.members.permissions import Actor, Permissions
from bot.runtime.clock import ManualClock
from bot.servers.config import SETTINGS, BadValue, ServerConfig, defaults_of
from bot.servers.directory import ServerDirectory
from bot.settings import Settings
from bot.storage import Database

ONE = 111_111_111_111_111_111
TWO = 222_222_222_222_222_222
CHANNEL = 333_333_333_333_333_333
THREAD = 444_444_444_444_444_444
ROLE = 555_555_555_555_555_555


def directory(database: Database, clock: ManualClock, settings: Settings) -> ServerDirectory:
    return ServerDirectory(database.sessions, clock, defaults_of(settings))


def test_the_defaults_are_the_environment_values(make_settings: Callable[..., Settings]) -> None:
    settings = make_settings(
        PERSONA="関西弁で話す",
        APPROVER_ROLE_IDS=str(ROLE),
        AUTO_APPROVE_TOOLS="add_note",
        WEATHER_NOTIFY_TIME="07:30",
        WEATHER_NOTIFY_CHANNEL_ID=str(CHANNEL),
        TIPS_QUIET_HOURS="22-6",
        MEMBER_DAILY_TOKEN_BUDGET="5000",
        DEFAULT_LANGUAGE="en",
    )

    config = defaults_of(settings)

    assert config.persona == "関西弁で話す"
    assert config.approver_roles == {ROLE}
    assert config.auto_approve_tools == {"add_note"}
    assert config.weather_enabled and config.weather_time == time(7, 30)
    assert config.tips_quiet_hours == (22, 6)
    assert config.member_daily_tokens == 5000
    assert config.language == "en"
    assert config.overridden == frozenset()


async def test_a_change_applies_to_its_server_only_and_says_where_it_comes_from(
    database: Database, clock: ManualClock, make_settings: Callable[..., Settings]
) -> None:
    servers = directory(database, clock, make_settings(PERSONA="default persona"))

    await servers.change(ONE, {"persona": "海賊のように話す", "language": "en"}, by=7)

    assert servers.config(ONE).persona == "海賊のように話す"
    assert servers.config(ONE).overridden == {"persona", "language"}
    assert servers.config(TWO).persona == "default persona"
    assert servers.config(TWO).overridden == frozenset()
    assert servers.config(None).language == "ja"


async def test_a_change_made_by_one_process_reaches_another_at_its_refresh(
    database: Database, clock: ManualClock, make_settings: Callable[..., Settings]
) -> None:
    settings = make_settings()
    here, there = directory(database, clock, settings), directory(database, clock, settings)
    await there.refresh()

    await here.change(ONE, {"disabled_tools": frozenset({"web_search"})}, by=7)
    assert there.config(ONE).tool_enabled("web_search")
    changed = await there.refresh()

    assert changed == 1
    assert not there.config(ONE).tool_enabled("web_search")
    assert await there.refresh() == 0


async def test_reset_returns_a_setting_to_the_default_everywhere(
    database: Database, clock: ManualClock, make_settings: Callable[..., Settings]
) -> None:
    settings = make_settings(TIPS_INTERVAL_HOURS="6")
    here, there = directory(database, clock, settings), directory(database, clock, settings)
    await here.change(ONE, {"tips_interval_hours": 2.0, "language": "en"}, by=7)
    await there.refresh()
    clock.advance(timedelta(seconds=1))

    await here.change(ONE, {"tips_interval_hours": None}, by=7, reset=True)
    await there.refresh()

    assert there.config(ONE).tips_interval_hours == 6.0
    assert there.config(ONE).overridden == {"language"}


async def test_every_kind_of_value_survives_the_database(
    database: Database, clock: ManualClock, make_settings: Callable[..., Settings]
) -> None:
    settings = make_settings()
    values = {
        "answer_mode": "allow",
        "answer_channels": frozenset({CHANNEL}),
        "weather_time": time(6, 45),
        "weather_enabled": True,
        "weather_channel": CHANNEL,
        "tips_quiet_hours": (23, 8),
        "tips_interval_hours": 1.5,
        "server_daily_tokens": 100_000,
        "timezone": "America/New_York",
    }
    await directory(database, clock, settings).change(ONE, values, by=7)
    fresh = directory(database, clock, settings)

    await fresh.refresh()

    assert fresh.overrides(ONE) == values


def test_bad_values_are_refused_with_a_sentence() -> None:
    for name, typed in [
        ("answer_mode", "sometimes"),
        ("weather_time", "25:00"),
        ("tips_quiet_hours", "night"),
        ("timezone", "Mars/Olympus"),
        ("server_daily_tokens", "-5"),
        ("persona", "x" * 1001),
        ("weather_enabled", "maybe"),
    ]:
        with pytest.raises(BadValue) as refused:
            SETTINGS[name].parse(typed)
        # One sentence per language, said in the admin's: Japanese, or English without kana.
        japanese, english = refused.value.said("ja"), refused.value.said("en")
        assert re.search(r"[\u3040-\u30ff]", japanese) and " / " not in japanese, japanese
        assert not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", english), english


def test_channel_mentions_and_ids_are_read_alike() -> None:
    assert SETTINGS["answer_channels"].parse(f"<#{CHANNEL}>, {THREAD}") == {CHANNEL, THREAD}
    assert SETTINGS["weather_channel"].parse("") is None


def test_an_allow_list_covers_threads_and_a_deny_list_silences_them() -> None:
    allow = ServerConfig(answer_mode="allow", answer_channels=frozenset({CHANNEL}))
    deny = ServerConfig(answer_mode="deny", answer_channels=frozenset({CHANNEL}))

    assert allow.answers_in(CHANNEL) and allow.answers_in(THREAD, CHANNEL)
    assert not allow.answers_in(THREAD)
    assert not deny.answers_in(THREAD, CHANNEL) and deny.answers_in(THREAD)


def test_a_switched_off_source_switches_off_its_tools() -> None:
    config = ServerConfig(disabled_tools=frozenset({"mcp.dice"}))

    assert not config.tool_enabled("mcp.dice.roll")
    assert config.tool_enabled("mcp.dicey.roll") and config.tool_enabled("web_search")


async def test_approver_roles_are_each_servers_own(
    database: Database, clock: ManualClock, make_settings: Callable[..., Settings]
) -> None:
    servers = directory(database, clock, make_settings())
    rules = Permissions.per_server(servers, make_settings())
    await servers.change(ONE, {"approver_roles": frozenset({ROLE})}, by=7)

    assert rules.is_approver(Actor(1, ONE, frozenset({ROLE})))
    assert not rules.is_approver(Actor(1, TWO, frozenset({ROLE})))
    assert not rules.is_knowledge_editor(Actor(1, ONE, frozenset({ROLE})))
