"""The reminder tools as the agent runs them: results for the model and its validation errors."""

from __future__ import annotations

import json
from datetime import UTC
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from bot.agent.tools import Tool, ToolContext, ToolOutcome, execute, parse_arguments
from bot.reminders.delivery.due_times import DueTimes
from bot.reminders.table import Reminder, ReminderState
from bot.reminders.tools import REMINDER_TOOLS
from bot.schedule.repeat import following, load_rule
from bot.schedule.times import local_iso
from bot.settings import Settings
from bot.storage.engine import Database
from tests.reminders.support import ALICE, BOB, ContextFactory

TOOLS = {t.name: t for t in REMINDER_TOOLS}


async def call(name: str, ctx: ToolContext, **arguments: Any) -> ToolOutcome:
    """Validate arguments the way the agent does, then run the tool."""
    tool_item: Tool = TOOLS[name]
    parsed, error = parse_arguments(tool_item, json.dumps(arguments))
    assert error is None, error
    assert parsed is not None
    return await execute(tool_item, ctx, parsed)


async def create(ctx: ToolContext, when: str, what: str = "歯医者", **extra: Any) -> ToolOutcome:
    return await call("create_reminder", ctx, when=when, what=what, **extra)


def test_tools_are_offered_with_the_right_approval_policy() -> None:
    assert set(TOOLS) == {
        "create_reminder",
        "list_reminders",
        "cancel_reminder",
        "edit_reminder",
        "snooze_reminder",
    }
    assert not TOOLS["list_reminders"].requires_approval
    assert all(t.requires_approval for n, t in TOOLS.items() if n != "list_reminders")


async def test_create_stores_utc_and_answers_in_the_users_zone(
    make_ctx: ContextFactory, database: Database
) -> None:
    outcome = await create(make_ctx(), "2026-11-21T09:00")
    assert not outcome.is_error, outcome.output
    assert outcome.output == {
        "created": True,
        "id": 1,
        "when": "2026-11-21T09:00+09:00",
        "when_text": "11月21日(土) 09:00",
        "what": "歯医者",
        "repeat": None,
    }
    async with database.sessions() as session:
        row = (await session.scalars(select(Reminder))).one()
    assert row.due_at.isoformat() == "2026-11-21T00:00:00+00:00"
    assert row.next_attempt_at == row.due_at
    assert (row.user_id, row.channel_id, row.guild_id) == (ALICE, 500, 77)
    assert (row.state, row.occurrence, row.attempts, row.timezone) == (
        ReminderState.PENDING,
        1,
        0,
        "Asia/Tokyo",
    )
    assert row.origin_message_id == 9999


async def test_naive_time_means_the_users_own_zone(make_ctx: ContextFactory) -> None:
    outcome = await create(make_ctx(tz=ZoneInfo("America/New_York")), "2026-11-21T09:00")
    assert outcome.output["when"] == "2026-11-21T09:00-05:00"


async def test_time_with_an_offset_is_taken_as_given(make_ctx: ContextFactory) -> None:
    outcome = await create(make_ctx(), "2026-11-21T00:00Z")
    assert outcome.output["when"] == "2026-11-21T09:00+09:00"


async def test_create_with_repeat_summarises_the_rule(make_ctx: ContextFactory) -> None:
    outcome = await create(
        make_ctx(),
        "2026-11-23T08:00",
        "ゴミ出し",
        repeat={"kind": "weekdays", "skip_holidays": True},
    )
    # The 23rd is a holiday, so the series starts on the 24th.
    assert outcome.output["when"] == "2026-11-24T08:00+09:00"
    assert outcome.output["repeat"] == "平日 08:00（祝日は休み）"


@pytest.mark.parametrize(
    ("when", "expected"),
    [
        ("2026-11-20T09:59", "is in the past (it is now 2026-11-20T10:00+09:00): ask the user"),
        ("2027-12-01T09:00", "more than 366 days ahead: ask the user for a time before"),
        ("tomorrow at 9", "'tomorrow at 9' is not an ISO 8601 local date and time"),
        ("2026-11-21", "'2026-11-21' has a date but no time of day"),
    ],
)
async def test_unusable_times_are_errors_the_model_can_relay(
    make_ctx: ContextFactory, when: str, expected: str
) -> None:
    outcome = await create(make_ctx(), when)
    assert outcome.is_error
    assert expected in outcome.output


async def test_empty_text_is_refused(make_ctx: ContextFactory) -> None:
    outcome = await create(make_ctx(), "2026-11-21T09:00", "   ")
    assert outcome.is_error
    assert "`what` is empty: ask the user what to be reminded about" in outcome.output


async def test_repeat_more_frequent_than_allowed_is_refused(make_ctx: ContextFactory) -> None:
    outcome = await create(
        make_ctx(), "2026-11-21T09:00", repeat={"kind": "every_minutes", "interval": 2}
    )
    assert outcome.is_error
    assert "every 2 minutes is too frequent" in outcome.output
    assert "ask the user for a longer interval" in outcome.output


async def test_repeat_with_fields_of_another_kind_fails_schema_validation() -> None:
    raw = json.dumps(
        {"when": "2026-11-21T09:00", "what": "x", "repeat": {"kind": "daily", "day_of_month": 3}}
    )
    arguments, error = parse_arguments(TOOLS["create_reminder"], raw)
    assert arguments is None
    assert error is not None and "day_of_month applies only to kind monthly" in error


async def test_the_per_user_limit_counts_only_that_users_pending_reminders(
    make_ctx: ContextFactory,
) -> None:
    tight = Settings(REMINDER_MAX_PER_USER=2)
    alice = make_ctx(settings_=tight)
    for hour in (9, 10):
        assert not (await create(alice, f"2026-11-21T{hour:02d}:00")).is_error
    refused = await create(alice, "2026-11-21T11:00")
    assert refused.is_error
    assert "already has 2 pending reminders, the most allowed is 2" in refused.output
    assert not (await create(make_ctx(BOB, settings_=tight), "2026-11-21T11:00")).is_error


async def test_list_shows_only_the_callers_pending_reminders_in_their_zone(
    make_ctx: ContextFactory,
) -> None:
    await create(make_ctx(), "2026-11-22T09:00", "B")
    await create(make_ctx(), "2026-11-21T09:00", "A")
    await create(make_ctx(BOB), "2026-11-21T08:00", "Bob's")
    cancelled = await create(make_ctx(), "2026-11-23T09:00", "C")
    await call("cancel_reminder", make_ctx(), reminder_id=cancelled.output["id"])

    outcome = await call("list_reminders", make_ctx(tz=ZoneInfo("Europe/London")))
    assert outcome.output["timezone"] == "Europe/London"
    assert [(r["what"], r["when"]) for r in outcome.output["reminders"]] == [
        ("A", "2026-11-21T00:00+00:00"),
        ("B", "2026-11-22T00:00+00:00"),
    ]


async def test_cancel_by_the_owner_stops_the_reminder(
    make_ctx: ContextFactory, database: Database
) -> None:
    created = await create(make_ctx(), "2026-11-21T09:00")
    outcome = await call("cancel_reminder", make_ctx(), reminder_id=created.output["id"])
    assert outcome.output["cancelled"] is True
    async with database.sessions() as session:
        row = await session.get(Reminder, created.output["id"])
    assert row is not None and row.state == ReminderState.CANCELLED
    assert row.cancelled_at is not None


async def test_cancel_of_someone_elses_reminder_is_refused(
    make_ctx: ContextFactory, database: Database
) -> None:
    created = await create(make_ctx(), "2026-11-21T09:00")
    outcome = await call("cancel_reminder", make_ctx(BOB), reminder_id=created.output["id"])
    assert outcome.is_error
    assert "belongs to another user and only its owner can cancel it" in outcome.output
    async with database.sessions() as session:
        row = await session.get(Reminder, created.output["id"])
    assert row is not None and row.state == ReminderState.PENDING


async def test_cancel_of_an_unknown_id_says_to_list_first(make_ctx: ContextFactory) -> None:
    outcome = await call("cancel_reminder", make_ctx(), reminder_id=42)
    assert outcome.is_error
    assert "there is no reminder #42: call list_reminders" in outcome.output


async def test_cancel_twice_says_it_is_already_cancelled(make_ctx: ContextFactory) -> None:
    created = await create(make_ctx(), "2026-11-21T09:00")
    await call("cancel_reminder", make_ctx(), reminder_id=created.output["id"])
    again = await call("cancel_reminder", make_ctx(), reminder_id=created.output["id"])
    assert again.is_error and "already cancelled" in again.output


async def test_edit_by_the_owner_moves_time_and_text(make_ctx: ContextFactory) -> None:
    created = await create(make_ctx(), "2026-11-21T09:00")
    outcome = await call(
        "edit_reminder",
        make_ctx(),
        reminder_id=created.output["id"],
        when="2026-11-21T10:30",
        what="歯医者（予約変更）",
    )
    assert outcome.output["when"] == "2026-11-21T10:30+09:00"
    assert outcome.output["what"] == "歯医者（予約変更）"


async def test_edit_of_a_repeat_keeps_the_new_time_for_later_occurrences(
    make_ctx: ContextFactory, database: Database
) -> None:
    created = await create(make_ctx(), "2026-11-21T09:00", repeat={"kind": "daily"})
    outcome = await call(
        "edit_reminder", make_ctx(), reminder_id=created.output["id"], when="2026-11-21T07:15"
    )
    assert outcome.output["repeat"] == "毎日 07:15"


async def test_edit_by_someone_else_is_refused(make_ctx: ContextFactory) -> None:
    created = await create(make_ctx(), "2026-11-21T09:00")
    outcome = await call(
        "edit_reminder", make_ctx(BOB), reminder_id=created.output["id"], what="hijacked"
    )
    assert outcome.is_error and "only its owner can edit it" in outcome.output


async def test_edit_without_changes_asks_for_one(make_ctx: ContextFactory) -> None:
    created = await create(make_ctx(), "2026-11-21T09:00")
    outcome = await call("edit_reminder", make_ctx(), reminder_id=created.output["id"])
    assert outcome.is_error and "give a new `when`, a new `what`, or both" in outcome.output


async def test_snooze_tool_rejects_an_unreadable_time(make_ctx: ContextFactory) -> None:
    created = await create(make_ctx(), "2026-11-21T09:00")
    outcome = await call(
        "snooze_reminder", make_ctx(), reminder_id=created.output["id"], until="in ten minutes"
    )
    assert outcome.is_error and "'in ten minutes' is not an ISO 8601" in outcome.output


async def test_tools_report_each_new_due_time_through_the_service(
    make_ctx: ContextFactory,
) -> None:
    due_times = DueTimes()
    seen: list[str] = []
    due_times.listen(lambda due: seen.append(due.isoformat()))
    ctx = make_ctx(on_change=due_times)
    await execute(TOOLS["create_reminder"], ctx, {"when": "2026-11-21T09:00", "what": "x"})
    await execute(TOOLS["edit_reminder"], ctx, {"reminder_id": 1, "when": "2026-11-21T08:00"})
    assert seen == ["2026-11-21T00:00:00+00:00", "2026-11-20T23:00:00+00:00"]


async def test_monthly_asked_before_its_day_starts_this_month(make_ctx: ContextFactory) -> None:
    # Asked on 2026-11-20 for "毎月25日": the 25th of this month, not of December.
    outcome = await create(
        make_ctx(), "2026-11-21T09:00", "カード確認", repeat={"kind": "monthly", "day_of_month": 25}
    )
    assert outcome.output["when"] == "2026-11-25T09:00+09:00"


async def test_month_end_asked_on_the_29th_of_a_31_day_month_starts_that_month_end(
    make_ctx: ContextFactory,
) -> None:
    outcome = await create(
        make_ctx(), "2026-12-29T20:00", "家賃", repeat={"kind": "monthly", "day_of_month": 31}
    )
    assert outcome.output["when"] == "2026-12-31T20:00+09:00"


async def test_a_series_first_due_in_a_dst_gap_moves_that_time_only(
    make_ctx: ContextFactory, database: Database
) -> None:
    new_york = ZoneInfo("America/New_York")
    # 02:30 does not exist in New York on 2027-03-14 (clocks jump from 02:00 to 03:00).
    outcome = await create(make_ctx(tz=new_york), "2027-03-14T02:30", repeat={"kind": "daily"})
    assert outcome.output["when"] == "2027-03-14T03:30-04:00"
    assert outcome.output["repeat"] == "毎日 02:30"
    async with database.sessions() as session:
        row = await session.get(Reminder, outcome.output["id"])
    assert row is not None
    rule = load_rule(row.repeat)
    assert rule is not None
    upcoming = following(rule, row.due_at.replace(tzinfo=UTC), 1, new_york)
    assert upcoming is not None
    assert local_iso(upcoming[0], new_york) == "2027-03-15T02:30-04:00"


async def test_editing_a_series_to_a_time_in_a_dst_gap_keeps_the_asked_wall_time(
    make_ctx: ContextFactory,
) -> None:
    new_york = ZoneInfo("America/New_York")
    created = await create(make_ctx(tz=new_york), "2027-03-13T09:00", repeat={"kind": "daily"})
    outcome = await call(
        "edit_reminder",
        make_ctx(tz=new_york),
        reminder_id=created.output["id"],
        when="2027-03-14T02:30",
    )
    assert outcome.output["when"] == "2027-03-14T03:30-04:00"
    assert outcome.output["repeat"] == "毎日 02:30"
