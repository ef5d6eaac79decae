"""Properties of the pure pieces members' text flows through, for any input hypothesis finds."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.discord_ui.answering.gate import mention_text
from bot.discord_ui.answering.splitting import DISCORD_LIMIT, split_message
from bot.discord_ui.sends import only
from tests.fakes.discord_server import FakeDiscord

BOT_ID = 1200000000000000001
BOT_ROLE_ID = 1400000000000000009
REQUESTER_ID = 1200000000000000002
SOMEONE_ELSE = 1200000000000000003
ROLE_ID = 1400000000000000002
FENCE_LINE = re.compile(r"\s*```")

# Text shaped like chat and code: words, long words, newlines, blank lines and fences.
PIECES = st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40),
    st.sampled_from(["\n", "\n\n", " ", "```", "```py\n", "\n```\n", "x" * 300, "あ" * 120]),
)
TEXT = st.lists(PIECES, max_size=120).map("".join)
LIMITS = st.integers(min_value=50, max_value=DISCORD_LIMIT)
PROPERTY_SETTINGS = settings(max_examples=300, deadline=None)


def _fences(text: str) -> int:
    """Lines opening or closing a code block (lines as the splitter sees them)."""
    return sum(1 for line in text.splitlines() if FENCE_LINE.match(line))


def _without_whitespace(text: str) -> str:
    return re.sub(r"\s", "", text)


@PROPERTY_SETTINGS
@given(TEXT, LIMITS)
def test_no_chunk_is_ever_over_the_limit(text: str, limit: int) -> None:
    assert all(len(chunk) <= limit for chunk in split_message(text, limit))


@PROPERTY_SETTINGS
@given(TEXT, LIMITS)
def test_every_chunk_closes_the_code_blocks_it_opens(text: str, limit: int) -> None:
    chunks = split_message(text, limit)
    left_open = _fences(text) % 2 == 1
    for chunk in chunks[:-1] if left_open else chunks:
        assert _fences(chunk) % 2 == 0, chunk


@PROPERTY_SETTINGS
@given(TEXT.map(lambda t: t.replace("`", "'")), LIMITS)
def test_text_without_code_blocks_is_kept_whole_and_in_order(text: str, limit: int) -> None:
    chunks = split_message(text, limit)

    assert _without_whitespace("".join(chunks)) == _without_whitespace(text)


@dataclass
class Role:
    id: int


@dataclass
class Guild:
    self_role: Role | None


@dataclass
class Message:
    content: str
    guild: Guild | None


BOT_FORMS = st.sampled_from([f"<@{BOT_ID}>", f"<@!{BOT_ID}>", f"<@&{BOT_ROLE_ID}>"])
WORDS = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30)


@PROPERTY_SETTINGS
@given(st.lists(st.one_of(BOT_FORMS, WORDS), max_size=12).map(" ".join))
def test_mention_stripping_removes_every_form_of_the_bot_and_keeps_the_rest(raw: str) -> None:
    stripped = mention_text(Message(raw, Guild(Role(BOT_ROLE_ID))), BOT_ID)  # type: ignore[arg-type]

    assert f"<@{BOT_ID}>" not in stripped and f"<@!{BOT_ID}>" not in stripped
    assert f"<@&{BOT_ROLE_ID}>" not in stripped
    rest = raw
    for form in (f"<@{BOT_ID}>", f"<@!{BOT_ID}>", f"<@&{BOT_ROLE_ID}>"):
        rest = rest.replace(form, "")
    assert _without_whitespace(stripped) == _without_whitespace(rest)


PINGS = st.sampled_from(
    [
        "@everyone",
        "@here",
        f"<@{SOMEONE_ELSE}>",
        f"<@!{SOMEONE_ELSE}>",
        f"<@{REQUESTER_ID}>",
        f"<@&{ROLE_ID}>",
        f"<@&{BOT_ROLE_ID}>",
    ]
)


def _pinged(content: str, allowed: dict[str, Any]) -> tuple[list[int], list[int], bool]:
    """What Discord would ping (the fake Discord models its rules)."""
    return FakeDiscord()._effective_mentions(content, allowed, None)


@PROPERTY_SETTINGS
@given(st.lists(st.one_of(PINGS, WORDS), max_size=15).map(" ".join))
def test_whatever_the_text_says_only_the_requester_can_be_pinged(content: str) -> None:
    users, roles, everyone = _pinged(content, only(REQUESTER_ID).to_dict())

    assert set(users) <= {REQUESTER_ID}
    assert roles == [] and everyone is False
