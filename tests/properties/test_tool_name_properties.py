"""Tool names sent to the model: what every provider accepts, for any registered name."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.agent.tools import TOOL_NAME_PATTERN
from bot.agent.tools.registry import PROVIDER_NAME, WireNames, wire_name

PROPERTY_SETTINGS = settings(max_examples=300, deadline=None)
registered = st.from_regex(TOOL_NAME_PATTERN, fullmatch=True)


@PROPERTY_SETTINGS
@given(registered)
def test_every_registered_name_is_sent_as_a_name_providers_accept(name: str) -> None:
    sent = wire_name(name)

    assert PROVIDER_NAME.fullmatch(sent)
    assert wire_name(name) == sent  # the same in every process and after a restart


@PROPERTY_SETTINGS
@given(st.lists(registered, unique=True, max_size=30))
def test_the_models_calls_map_back_to_the_registered_names(names: list[str]) -> None:
    distinct = {}
    for name in names:
        distinct.setdefault(wire_name(name), name)  # the registry refuses the others
    request = WireNames(distinct.values())

    for name in distinct.values():
        assert request.registered(wire_name(name)) == name
