"""What the channels and catch-up features declare: their environment settings, each server's
listening channels, cool-down and catch-up cap, and refusals said in the admin's language."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import bot.app.features  # noqa: F401  (the feature list registers what the features declare)
from bot.catchup.server_settings import CATCHUP_MAX_MESSAGES
from bot.catchup.settings import CatchupSettings
from bot.channels.server_settings import LISTEN_COOLDOWN, LISTENING_CHANNELS, listens_in
from bot.channels.settings import ChannelSettings
from bot.servers.config import SETTINGS, BadValue, defaults_of, effective
from bot.settings import Settings, SettingsError, load_settings

CHANNEL = 333_333_333_333_333_333


def test_bad_values_stop_the_start_with_a_sentence_each() -> None:
    with pytest.raises(SettingsError) as caught:
        load_settings(
            environ={"CATCHUP_MAX_MESSAGES": "5", "LISTEN_COOLDOWN_SECONDS": "-1"},
            env_file=None,
            sections=[ChannelSettings, CatchupSettings],
        )

    problems = caught.value.problems
    assert [p.split()[0] for p in problems] == ["LISTEN_COOLDOWN_SECONDS", "CATCHUP_MAX_MESSAGES"]


def test_each_server_starts_from_the_environment(make_settings: Callable[..., Settings]) -> None:
    config = defaults_of(make_settings(CATCHUP_MAX_MESSAGES="50", LISTEN_COOLDOWN_SECONDS="30"))

    assert config.get(CATCHUP_MAX_MESSAGES) == 50
    assert config.get(LISTEN_COOLDOWN) == 30
    assert config.get(LISTENING_CHANNELS) == frozenset()


def test_a_listening_channel_still_obeys_the_servers_answer_channels() -> None:
    listening = effective(defaults_of(Settings()), {"listening_channels": frozenset({CHANNEL})})
    denied = effective(listening, {"answer_mode": "deny", "answer_channels": frozenset({CHANNEL})})

    assert listens_in(listening, CHANNEL) and not listens_in(listening, CHANNEL + 1)
    assert not listens_in(denied, CHANNEL)
    assert SETTINGS["listening_channels"].show(frozenset({CHANNEL})) == f"<#{CHANNEL}>"


@pytest.mark.parametrize(
    ("name", "typed"), [("catchup_max_messages", "5"), ("listen_cooldown_seconds", "tomorrow")]
)
def test_bad_typed_values_are_refused_in_both_languages(name: str, typed: str) -> None:
    with pytest.raises(BadValue) as caught:
        SETTINGS[name].parse(typed)

    assert caught.value.said("ja") != caught.value.said("en")
