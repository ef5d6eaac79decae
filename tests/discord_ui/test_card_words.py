"""A card in one language: labels, values for people, hidden model details, status lines."""

from __future__ import annotations

import re
from zoneinfo import ZoneInfo

from bot.agent.recovery import BROKE_OFF_DETAIL, RESTART_DETAIL
from bot.discord_ui.cards.decisions import recovery_reason
from bot.discord_ui.cards.embed import CardState, ToolCard, dressed, state_line
from bot.i18n import answers
from bot.reminders.tools import REMINDER_TOOLS

TOOLS = {t.name: t for t in REMINDER_TOOLS}
TOKYO = ZoneInfo("Asia/Tokyo")


def _card(name: str, **fields: object) -> ToolCard:
    return dressed(ToolCard(name, timezone=TOKYO, **fields), TOOLS[name])  # type: ignore[arg-type]


def test_empty_values_and_model_only_arguments_are_not_shown() -> None:
    card = _card(
        "edit_reminder",
        state=CardState.NEEDS_APPROVAL,
        arguments={"reminder_id": 12, "when": "2026-12-01T10:30", "what": None},
    )

    fields = {f.name: f.value for f in card.render().fields}

    # 2026-12-01 10:30 in Tokyo is 01:30 UTC.
    assert fields == {"新しい日時": "<t:1796088600:F>"}


def test_a_read_only_status_line_in_each_language() -> None:
    lines = {
        (language, state): _card("list_reminders", state=state, language=language)
        .render()
        .description
        for language in ("ja", "en")
        for state in (CardState.RUNNING, CardState.FAILED)
    }

    assert lines == {
        ("ja", CardState.RUNNING): "⚙️ リマインドの一覧を確認中…",
        ("ja", CardState.FAILED): "⚠️ リマインドの一覧を確認できませんでした",
        ("en", CardState.RUNNING): "⚙️ Checking your reminders…",
        ("en", CardState.FAILED): "⚠️ Checking your reminders: that did not work",
    }


def test_a_failed_call_tells_the_member_the_reply_explains_not_the_models_error() -> None:
    card = _card(
        "create_reminder",
        state=CardState.FAILED,
        language="en",
        arguments={"when": "2026-12-01T09:00", "what": "dentist"},
        result="the user already has 25 pending reminders: ask them to cancel one first",
    )

    fields = {f.name: f.value for f in card.render().fields}

    assert fields["Result"] == "That did not work; the reply says why."


def test_recoverys_reasons_reach_the_card_in_its_members_language() -> None:
    assert recovery_reason(RESTART_DETAIL, "ja") == answers.RESTARTED_BEFORE_RUN("ja")
    assert recovery_reason(RESTART_DETAIL, "en") == RESTART_DETAIL
    assert recovery_reason(BROKE_OFF_DETAIL, "ja") == answers.BROKE_OFF("ja")
    # Any other reason (a member's rejection reason) is shown as it was written.
    assert recovery_reason("日付が違う", "en") == "日付が違う"
    assert recovery_reason(None, "ja") is None


def test_a_card_in_each_state_says_it_in_one_language() -> None:
    for state in CardState:
        japanese, english = state_line(state, "ja"), state_line(state, "en")

        assert re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", japanese), state
        assert not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", english), state
        assert "/" not in japanese and "/" not in english
