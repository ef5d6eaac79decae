"""Autocomplete suggestions stay within Discord's limits for any candidates."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.discord_ui.commands.choices import CHOICE_CHARS, CHOICES, suggestions

# Timings on a shared machine vary; the properties, not the speed, are under test.
PROPERTY_SETTINGS = settings(max_examples=200, deadline=None)
names = st.text(min_size=1, max_size=300)


@PROPERTY_SETTINGS
@given(st.lists(st.tuples(names, st.text(min_size=1, max_size=200)), max_size=60))
def test_text_suggestions_never_exceed_discords_limits(candidates: list[tuple[str, str]]) -> None:
    found = suggestions(candidates)

    assert len(found) <= CHOICES
    assert all(len(c.name) <= CHOICE_CHARS and len(c.value) <= CHOICE_CHARS for c in found)
    fitting = [value for _, value in candidates if len(value) <= CHOICE_CHARS]
    assert [c.value for c in found] == fitting[:CHOICES]


@PROPERTY_SETTINGS
@given(st.lists(st.tuples(names, st.integers(min_value=1, max_value=10**9)), max_size=60))
def test_number_suggestions_keep_every_value_in_order_with_short_names(
    candidates: list[tuple[str, int]],
) -> None:
    found = suggestions(candidates)

    assert [c.value for c in found] == [value for _, value in candidates][:CHOICES]
    assert all(len(c.name) <= CHOICE_CHARS for c in found)
    assert all(
        c.name == name
        for c, (name, _) in zip(found, candidates, strict=False)
        if len(name) <= CHOICE_CHARS
    )
