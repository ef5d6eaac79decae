"""Approvals are data: who may decide, deciding once, resuming from history, expiry, stopping."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from bot.agent import events as ev
from bot.agent.approvals.service import Decision, Status
from bot.agent.call_records import OPEN_CARD_GRACE, CallRecords, CardPlace, incarnation_of
from bot.agent.conversation import messages as m
from bot.agent.runs import StopReason, StopSignal
from bot.storage.agent import ToolGrant
from tests.agent.conftest import Rig, collect, converse
from tests.fakes.llm_server import text, tool_call, tool_calls

# The server of rig.request().
GUILD = 1


async def _pending_approval(rig: Rig) -> int:
    """Run until the card: the run ends there, leaving only the row; return its id."""
    events = await collect(rig.agent.run(rig.request(), "メモして"))
    assert events[-1] == ev.Done("", "awaiting_approval", events[-1].usage)  # type: ignore[union-attr]
    return next(e.approval_id for e in events if isinstance(e, ev.ApprovalRequired))


async def _decide_and_resume(
    rig: Rig, approval_id: int, user_id: int, decision: Decision, **kwargs: object
) -> list[ev.AgentEvent]:
    """Decide as a click does; the caller that changed the row resumes the conversation."""
    outcome = await rig.approvals.decide(approval_id, user_id, decision, **kwargs)  # type: ignore[arg-type]
    return await converse(rig, rig.agent.resume(approval_id)) if outcome.changed else []


async def test_the_row_exists_before_the_card_is_shown(rig: Rig) -> None:
    rig.llm.queue(tool_call("add_note", {"text": "x"}, id="call_9"))
    approval_id = await _pending_approval(rig)

    row = await rig.approvals.get(approval_id)
    assert row is not None and row.status == Status.PENDING
    assert (row.tool_name, row.tool_call_id, row.requester_id, row.channel_id) == (
        "add_note",
        "call_9",
        100,
        10,
    )
    assert row.expires_at - row.created_at == timedelta(seconds=300)


async def test_someone_else_is_refused_and_nothing_changes(rig: Rig) -> None:
    rig.llm.queue(tool_call("add_note", {"text": "x"}), text("done"))
    approval_id = await _pending_approval(rig)

    outcome = await rig.approvals.decide(approval_id, 999, Decision.APPROVE)

    assert not outcome.effective and not outcome.changed
    assert "Only user100" in outcome.message
    assert (await rig.approvals.get(approval_id)).status == Status.PENDING  # type: ignore[union-attr]
    assert rig.book.notes == []
    await _decide_and_resume(rig, approval_id, 100, Decision.APPROVE)
    assert rig.book.notes == ["x"]


async def test_an_approver_may_decide_for_someone_else(rig: Rig) -> None:
    rig.llm.queue(tool_call("add_note", {"text": "x"}), text("done"))
    approval_id = await _pending_approval(rig)

    await _decide_and_resume(rig, approval_id, 999, Decision.APPROVE, is_approver=True)

    assert rig.book.notes == ["x"]
    assert (await rig.approvals.get(approval_id)).decided_by == 999  # type: ignore[union-attr]


async def test_deciding_twice_has_one_effect(rig: Rig) -> None:
    rig.llm.queue(tool_call("add_note", {"text": "x"}), text("done"))
    approval_id = await _pending_approval(rig)

    first, second = await asyncio.gather(
        rig.approvals.decide(approval_id, 100, Decision.APPROVE),
        rig.approvals.decide(approval_id, 100, Decision.REJECT),
    )
    resumed = await asyncio.gather(
        converse(rig, rig.agent.resume(approval_id)), converse(rig, rig.agent.resume(approval_id))
    )

    assert [first.effective, second.effective].count(True) == 1
    assert [first.changed, second.changed].count(True) == 1
    assert rig.book.notes == ["x"] or rig.book.notes == []
    assert len([e for run in resumed for e in run if isinstance(e, ev.Done)]) == 1
    loser = second if first.effective else first
    assert "already" in loser.message


@pytest.mark.parametrize("decision", [Decision.APPROVE, Decision.REJECT])
async def test_two_resumes_that_both_read_the_decision_carry_it_on_exactly_once(
    rig: Rig, monkeypatch: pytest.MonkeyPatch, decision: Decision
) -> None:
    rig.llm.queue(tool_call("add_note", {"text": "x"}), text("done"))
    approval_id = await _pending_approval(rig)
    await rig.approvals.decide(approval_id, 100, decision)
    # A double click racing the sweep: both resumes read the decided row before either goes on.
    both_read = asyncio.Barrier(2)
    read = rig.approvals.get

    async def read_then_meet(approval: int) -> object:
        row = await read(approval)
        await both_read.wait()
        return row

    monkeypatch.setattr(rig.approvals, "get", read_then_meet)

    first, second = await asyncio.gather(
        collect(rig.agent.resume(approval_id)), collect(rig.agent.resume(approval_id))
    )

    events = first + second
    assert len([e for e in events if isinstance(e, ev.Done)]) == 1
    assert rig.book.notes == (["x"] if decision == Decision.APPROVE else [])
    settled = [e for e in events if isinstance(e, ev.ToolResult | ev.ToolRejected)]
    assert len(settled) == 1
    answers = [
        s
        for s in await rig.agent.store.tail(rig.request().conversation_key)
        if isinstance(s.message, m.ToolResultMessage | m.ToolRejectedMessage)
    ]
    assert len(answers) == 1


async def test_a_run_that_dies_at_its_card_still_runs_the_tool_when_approved(rig: Rig) -> None:
    rig.llm.queue(tool_call("add_note", {"text": "生き残る"}), text("メモしました"))
    run = rig.agent.run(rig.request(), "メモして")
    async for event in run:
        if isinstance(event, ev.ApprovalRequired):
            approval_id = event.approval_id
            break  # posting the card failed: whoever consumed the run is gone
    await run.aclose()

    events = await _decide_and_resume(rig, approval_id, 100, Decision.APPROVE)

    assert rig.book.notes == ["生き残る"]
    assert events[-1] == ev.Done("メモしました", "answered", events[-1].usage)  # type: ignore[union-attr]


async def test_resume_after_restart_runs_the_tool_and_continues(rig: Rig) -> None:
    rig.llm.queue(tool_call("add_note", {"text": "再起動後"}, id="call_x"))
    approval_id = await _pending_approval(rig)

    restarted = rig.rebuilt()
    outcome = await restarted.approvals.decide(approval_id, 100, Decision.APPROVE)
    assert outcome.effective and outcome.changed
    restarted.llm.queue(text("再起動後もメモしました"))
    events = await collect(restarted.agent.resume(approval_id))

    assert rig.book.notes == ["再起動後"]
    assert [type(e).__name__ for e in events if not isinstance(e, ev.TextDelta)] == [
        "ToolExecuting",
        "ToolResult",
        "RoundEnd",
        "Done",
    ]
    last = restarted.llm.last_request.messages
    assert last[-1]["role"] == "tool" and last[-1]["tool_call_id"] == "call_x"
    assert events[-1].text == "再起動後もメモしました"  # type: ignore[union-attr]


async def test_an_expired_request_after_restart_runs_nothing(rig: Rig) -> None:
    rig.llm.queue(tool_call("add_note", {"text": "late"}))
    approval_id = await _pending_approval(rig)

    restarted = rig.rebuilt()
    rig.clock.advance(timedelta(seconds=301))
    outcome = await restarted.approvals.decide(approval_id, 100, Decision.APPROVE)
    events = await collect(restarted.agent.resume(approval_id))

    assert not outcome.effective and outcome.status == Status.EXPIRED and outcome.changed
    assert "expired" in outcome.message
    assert rig.book.notes == []
    assert [e.reason for e in events if isinstance(e, ev.ToolRejected)] == ["timed_out"]
    assert events[-1] == ev.Done("", "expired", events[-1].usage)  # type: ignore[union-attr]


async def test_sweep_expires_overdue_requests(rig: Rig) -> None:
    rig.llm.queue(tool_call("add_note", {"text": "late"}))
    approval_id = await _pending_approval(rig)
    restarted = rig.rebuilt()

    assert await restarted.approvals.expire_overdue() == []
    rig.clock.advance(timedelta(minutes=6))
    expired = await restarted.approvals.expire_overdue()
    again = await rig.approvals.expire_overdue()

    assert [row.id for row in expired] == [approval_id]
    assert again == []  # a second sweeper (another process) finds nothing left to expire
    assert (await restarted.approvals.get(approval_id)).status == Status.EXPIRED  # type: ignore[union-attr]
    stored = [s.message for s in await rig.store.all("c10:u100")]
    await collect(restarted.agent.resume(approval_id))
    recorded = [s.message for s in await rig.store.all("c10:u100")][len(stored) :]
    assert [(x.kind, getattr(x, "reason", None)) for x in recorded] == [
        ("tool_rejected", "timed_out")
    ]


async def test_a_new_message_invalidates_a_leftover_request(rig: Rig) -> None:
    rig.llm.queue(tool_call("add_note", {"text": "old"}, id="call_old"))
    approval_id = await _pending_approval(rig)

    restarted = rig.rebuilt()
    restarted.llm.queue(text("新しい話題ですね"))
    events = await collect(restarted.agent.run(restarted.request(), "別の話"))

    assert events[0] == ev.ToolRejected(
        "call_old", "add_note", None, "invalidated", None, approval_id
    )
    assert (await restarted.approvals.get(approval_id)).status == Status.INVALIDATED  # type: ignore[union-attr]
    sent = restarted.llm.last_request.messages
    assert any(x["role"] == "tool" and x["tool_call_id"] == "call_old" for x in sent)


async def test_a_decision_on_a_cancelled_card_changes_and_runs_nothing(rig: Rig) -> None:
    rig.llm.queue(tool_call("add_note", {"text": "x"}), text("別の話ですね"))
    approval_id = await _pending_approval(rig)
    await collect(rig.agent.run(rig.request(), "やっぱり別の話"))

    late = await _decide_and_resume(rig, approval_id, 100, Decision.APPROVE)

    assert late == []
    assert (await rig.approvals.get(approval_id)).status == Status.INVALIDATED  # type: ignore[union-attr]
    assert rig.book.notes == []


async def test_stop_during_execution_keeps_partial_output(rig: Rig) -> None:
    rig.llm.queue(tool_call("long_job", {"steps": 2}, id="call_long"))
    stop = asyncio.Event()
    stopping: list[asyncio.Task[None]] = []

    async def stop_once_reported() -> None:
        await rig.book.reported.wait()
        stop.set()

    async def on_event(event: ev.AgentEvent) -> None:
        if isinstance(event, ev.ToolExecuting):
            stopping.append(asyncio.create_task(stop_once_reported()))

    events = await collect(rig.agent.run(rig.request(), "長い仕事", stop), on_event)

    assert of_type_reason(events) == ["interrupted"]
    assert isinstance(events[-1], ev.Done) and events[-1].reason == "interrupted"
    stored = [s.message for s in await rig.store.all("c10:u100")]
    rejected = stored[-1]
    assert isinstance(rejected, m.ToolRejectedMessage)
    assert rejected.reason == "interrupted"
    assert rejected.partial == [{"step": 1}, {"step": 2}]
    rig.llm.queue(text("続きは？"))
    await collect(rig.agent.run(rig.request(), "どうなった？"))
    tool_message = next(x for x in rig.llm.last_request.messages if x["role"] == "tool")
    assert '"step": 2' in tool_message["content"] and "interrupted" in tool_message["content"]


async def test_stop_while_streaming_keeps_the_partial_text(rig: Rig) -> None:
    rig.llm.queue(text("とても長い答えをゆっくり書いています。" * 5, chunk_delay=0.05))
    stop = asyncio.Event()

    async def on_event(event: ev.AgentEvent) -> None:
        if isinstance(event, ev.TextDelta):
            stop.set()

    events = await collect(rig.agent.run(rig.request(), "長く話して", stop), on_event)

    shown = "".join(e.text for e in events if isinstance(e, ev.TextDelta))
    assert shown and len(shown) < len("とても長い答えをゆっくり書いています。" * 5)
    assert isinstance(events[-1], ev.Done) and events[-1].reason == "interrupted"
    stored = [s.message for s in await rig.store.all("c10:u100")]
    assert isinstance(stored[-2], m.AssistantMessage) and stored[-2].text == shown
    assert isinstance(stored[-1], m.NoticeMessage)


async def test_grants_are_listable_and_revocable(rig: Rig) -> None:
    await rig.approvals.grant(100, "add_note", guild_id=GUILD)
    await rig.approvals.grant(100, "add_note", guild_id=GUILD)

    assert [g.tool_name for g in await rig.approvals.grants(100, guild_id=GUILD)] == ["add_note"]
    assert await rig.approvals.needs_asking(100, "add_note", guild_id=GUILD) == (False, "grant")
    assert await rig.approvals.revoke(100, "add_note", guild_id=GUILD) is True
    assert await rig.approvals.revoke(100, "add_note", guild_id=GUILD) is False
    assert await rig.approvals.needs_asking(100, "add_note", guild_id=GUILD) == (True, "")


async def test_a_grant_counts_only_in_the_server_where_it_was_made(rig: Rig) -> None:
    await rig.approvals.grant(100, "add_note", guild_id=GUILD)
    await rig.approvals.grant(100, "set_timezone", guild_id=None)  # in a DM

    assert await rig.approvals.needs_asking(100, "add_note", guild_id=GUILD) == (False, "grant")
    assert await rig.approvals.needs_asking(100, "add_note", guild_id=2) == (True, "")
    assert await rig.approvals.needs_asking(100, "add_note", guild_id=None) == (True, "")
    assert await rig.approvals.needs_asking(100, "set_timezone", guild_id=GUILD) == (True, "")
    assert [g.tool_name for g in await rig.approvals.grants(100, guild_id=2)] == []
    assert await rig.approvals.revoke(100, "add_note", guild_id=2) is False
    assert await rig.approvals.needs_asking(100, "add_note", guild_id=GUILD) == (False, "grant")


async def test_a_grant_from_before_servers_had_their_own_counts_everywhere(rig: Rig) -> None:
    async with rig.database.sessions() as session, session.begin():
        session.add(
            ToolGrant(user_id=100, guild_id=None, tool_name="add_note", created_at=rig.clock.now())
        )

    for where in (GUILD, 2, None):
        assert await rig.approvals.needs_asking(100, "add_note", guild_id=where) == (
            False,
            "grant",
        )


async def test_auto_approve_setting_skips_the_question(rig: Rig) -> None:
    rig.approvals.auto_approve = frozenset({"add_note"})
    rig.llm.queue(tool_call("add_note", {"text": "auto"}), text("ok"))

    events = await collect(rig.agent.run(rig.request(), "メモ"))

    assert not [e for e in events if isinstance(e, ev.ApprovalRequired)]
    assert next(e for e in events if isinstance(e, ev.ToolExecuting)).approved_by == "policy"


def of_type_reason(events: list[ev.AgentEvent]) -> list[str]:
    return [e.reason for e in events if isinstance(e, ev.ToolRejected)]


async def test_a_grant_holds_for_the_provider_it_was_made_for_only(rig: Rig) -> None:
    await rig.approvals.grant(100, "dice.roll", "alpha" * 4, guild_id=GUILD)

    assert await rig.approvals.needs_asking(100, "dice.roll", "alpha" * 4, guild_id=GUILD) == (
        False,
        "grant",
    )
    assert await rig.approvals.needs_asking(100, "dice.roll", "evil" * 4, guild_id=GUILD) == (
        True,
        "",
    )
    assert await rig.approvals.needs_asking(100, "dice.roll", guild_id=GUILD) == (True, "")


async def test_the_grants_of_a_name_that_changed_provider_are_dropped(rig: Rig) -> None:
    await rig.approvals.grant(100, "dice.roll", "alpha", guild_id=GUILD)
    await rig.approvals.grant(200, "dice.roll", "alpha", guild_id=GUILD)
    await rig.approvals.grant(300, "dice.roll", "beta", guild_id=GUILD)
    await rig.approvals.grant(100, "add_note", guild_id=GUILD)

    dropped = await rig.approvals.keep_grants_for("dice.roll", "beta")

    assert dropped == 2
    assert await rig.approvals.needs_asking(300, "dice.roll", "beta", guild_id=GUILD) == (
        False,
        "grant",
    )
    assert await rig.approvals.needs_asking(100, "add_note", guild_id=GUILD) == (False, "grant")
    assert await rig.approvals.keep_grants_for("dice.roll", "beta") == 0


async def test_always_allow_on_a_card_grants_the_provider_the_card_showed(rig: Rig) -> None:
    rig.llm.queue(tool_call("add_note", {"text": "x"}, id="call_1"), text("ok"))
    approval_id = await _pending_approval(rig)

    await _decide_and_resume(rig, approval_id, 100, Decision.ALWAYS)

    (grant,) = await rig.approvals.grants(100, guild_id=GUILD)
    assert (grant.tool_name, grant.provider) == ("add_note", None)  # a built-in: no provider


@pytest.mark.parametrize(
    ("who", "reasons", "said"),
    [
        (
            "member",
            ["interrupted", "after_stop"],
            "the user stopped the answer before this tool call ran",
        ),
        (
            "shutdown",
            ["unknown_outcome", "after_shutdown"],
            "the bot restarted before this tool call ran",
        ),
    ],
)
async def test_a_call_after_a_stopped_one_is_told_why_it_never_ran(
    rig: Rig, who: StopReason, reasons: list[str], said: str
) -> None:
    rig.llm.queue(
        tool_calls(
            [
                tool_call("long_job", {"steps": 2}, id="call_long"),
                tool_call("count_notes", {}, id="call_count"),
            ]
        )
    )
    stop = StopSignal()

    async def on_event(event: ev.AgentEvent) -> None:
        if isinstance(event, ev.ToolExecuting):
            stop.request(who)

    events = await collect(rig.agent.run(rig.request(), "長い仕事と数え", stop), on_event)

    # The stopped call itself: interrupted by the member, or cut off (outcome unknown).
    assert of_type_reason(events) == reasons
    assert isinstance(events[-1], ev.Done)
    assert events[-1].reason == ("shutdown" if who == "shutdown" else "interrupted")
    rig.llm.queue(text("はい"))
    await collect(rig.agent.run(rig.request(), "どうなった？"))
    told = {
        x["tool_call_id"]: x["content"]
        for x in rig.llm.last_request.messages
        if x["role"] == "tool"
    }
    assert said in told["call_count"] and "moved on" not in told["call_count"]


async def test_calls_asked_together_go_on_only_once_each_is_decided(rig: Rig) -> None:
    rig.llm.queue(
        tool_calls([tool_call("add_note", {"text": "a"}), tool_call("add_note", {"text": "b"})])
    )
    events = await collect(rig.agent.run(rig.request(), "aとbをメモ"))
    first, second = (e.approval_id for e in events if isinstance(e, ev.ApprovalRequired))

    await rig.approvals.decide(second, 100, Decision.APPROVE)
    # Long enough for the sweep to look for decisions left behind, before any card expires.
    rig.clock.advance(timedelta(seconds=60))
    # Neither a resume nor the sweep carries on while the first call waits.
    assert await collect(rig.agent.resume(second)) == []
    assert await rig.agent.calls.left_behind(rig.clock.now()) == []
    assert rig.book.notes == []

    await rig.approvals.decide(first, 100, Decision.APPROVE)
    rig.llm.queue(text("2件メモしました"))
    await collect(rig.agent.resume(first))

    assert rig.book.notes == ["a", "b"]
    assert await rig.agent.calls.left_behind(rig.clock.now()) == []


async def test_a_call_a_resume_just_claimed_is_not_ended_as_left_open(rig: Rig) -> None:
    """After a restart the resume claims an approved call while recovery looks for calls the
    earlier process left open: the claimed call is the resume's to run, not "cancelled"."""
    rig.llm.queue(tool_call("add_note", {"text": "x"}, id="call_5"))
    approval_id = await _pending_approval(rig)
    row = await rig.approvals.get(approval_id)
    assert row is not None
    # The card was shown by this process's earlier life.
    identity, _ = incarnation_of(rig.agent.records.executor)
    earlier = CallRecords(rig.database.sessions, f"{identity}/earlier")
    place = CardPlace("add_note", row.channel_id, 777)
    await earlier.record_card(row.conversation_key, "call_5", place, rig.clock.now())
    await rig.approvals.decide(approval_id, 100, Decision.APPROVE)
    assert await rig.approvals.claim_resume(row)

    assert await rig.agent.recovery.recover(everyone=False) == []
    tail = [stored.message for stored in await rig.store.tail(row.conversation_key)]
    assert not any(isinstance(message, m.ToolRejectedMessage) for message in tail)

    # Had the resuming process died before running it, the call ends once the grace is over.
    rig.clock.advance(OPEN_CARD_GRACE + timedelta(seconds=1))
    ended = await rig.agent.recovery.recover(everyone=False)
    assert [(item.call.call_id, item.outcome) for item in ended] == [("call_5", "invalidated")]
