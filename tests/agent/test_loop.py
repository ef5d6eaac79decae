"""The agent loop over the scripted model: streaming, tool gating, failures, limits."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import timedelta

from bot.agent import events as ev
from bot.agent.approvals.service import Decision
from bot.agent.conversation import messages as m
from bot.agent.tools import ToolContext, tool
from tests.agent.conftest import Rig, collect, converse
from tests.fakes.llm_server import (
    auth_error,
    context_length_exceeded,
    rate_limited,
    server_error,
    text,
    tool_call,
    tool_calls,
)

# The server of rig.request().
GUILD = 1


def of_type(events: list[ev.AgentEvent], kind: type) -> list:
    return [e for e in events if isinstance(e, kind)]


async def test_plain_reply_costs_one_llm_call_and_streams_deltas(rig: Rig) -> None:
    rig.llm.queue(text("こんにちは、お手伝いできることはありますか？"))

    events = await collect(rig.agent.run(rig.request(), "こんにちは"))

    deltas = of_type(events, ev.TextDelta)
    assert len(deltas) > 1
    assert "".join(d.text for d in deltas) == "こんにちは、お手伝いできることはありますか？"
    assert isinstance(events[-1], ev.Done) and events[-1].reason == "answered"
    assert rig.llm.request_count == 1
    request = rig.llm.last_request
    assert request.stream is True
    assert request.messages[0] == {"role": "system", "content": "You are a test assistant."}
    # The context (the time) follows the member's message: see test_prompt_layout.py.
    assert request.messages[-2] == {"role": "user", "content": "user100: こんにちは"}
    assert request.messages[-1] == {"role": "system", "content": "Now 2026-11-29 20:00."}
    assert set(request.tool_names) == {"add_note", "count_notes", "explode", "slow", "long_job"}


async def test_approved_tool_runs_and_its_result_goes_back_to_the_model(rig: Rig) -> None:
    rig.llm.queue(tool_call("add_note", {"text": "牛乳を買う"}, id="call_1"), text("メモしました"))

    async def approve(event: ev.AgentEvent) -> None:
        if isinstance(event, ev.ApprovalRequired):
            assert event.arguments == {"text": "牛乳を買う"}
            outcome = await rig.approvals.decide(event.approval_id, 100, Decision.APPROVE)
            assert outcome.effective and outcome.changed

    events = await converse(rig, rig.agent.run(rig.request(), "牛乳を買うってメモして"), approve)

    kinds = [type(e).__name__ for e in events if not isinstance(e, ev.TextDelta)]
    assert kinds == [
        "ToolCallStarted",
        "RoundEnd",
        "ApprovalRequired",
        "Done",  # the run ends at the card; the decision resumes it from history
        "ToolExecuting",
        "ToolResult",
        "RoundEnd",
        "Done",
    ]
    assert rig.book.notes == ["牛乳を買う"]
    second = rig.llm.requests[1]
    assistant = second.messages[-2]
    assert assistant["tool_calls"][0]["function"] == {
        "name": "add_note",
        "arguments": '{"text": "牛乳を買う"}',
    }
    result = second.messages[-1]
    assert result["role"] == "tool" and result["tool_call_id"] == "call_1"
    assert json.loads(result["content"])["output"]["saved"] == "牛乳を買う"
    assert of_type(events, ev.ToolExecuting)[0].approved_by == "person"


async def test_rejection_ends_the_run_and_the_next_request_shows_it(rig: Rig) -> None:
    rig.llm.queue(tool_call("add_note", {"text": "x"}, id="call_r"))

    async def reject(event: ev.AgentEvent) -> None:
        if isinstance(event, ev.ApprovalRequired):
            await rig.approvals.decide(event.approval_id, 100, Decision.REJECT, "今はいらない")

    events = await converse(rig, rig.agent.run(rig.request(), "メモして"), reject)

    assert rig.book.notes == []
    assert rig.llm.request_count == 1
    rejected = of_type(events, ev.ToolRejected)
    assert rejected[0].reason == "rejected" and rejected[0].detail == "今はいらない"
    assert isinstance(events[-1], ev.Done) and events[-1].reason == "rejected"

    rig.llm.queue(text("了解です"))
    await collect(rig.agent.run(rig.request(), "やっぱりいいや"))
    history = rig.llm.last_request.messages
    tool_message = next(x for x in history if x["role"] == "tool")
    assert tool_message["tool_call_id"] == "call_r"
    assert "rejected" in tool_message["content"] and "今はいらない" in tool_message["content"]


async def test_unanswered_approval_expires_and_ends_as_expired_not_rejected(rig: Rig) -> None:
    rig.llm.queue(tool_call("add_note", {"text": "x"}))
    await collect(rig.agent.run(rig.request(), "メモして"))
    rig.clock.advance(timedelta(seconds=301))

    (expired,) = await rig.approvals.expire_overdue()
    events = await converse(rig, rig.agent.resume(expired.id))

    assert of_type(events, ev.ToolRejected)[0].reason == "timed_out"
    assert events[-1] == ev.Done("", "expired", events[-1].usage)
    assert rig.book.notes == []
    stored = [s.message for s in await rig.store.all("c10:u100")]
    assert isinstance(stored[-1], m.ToolRejectedMessage) and stored[-1].reason == "timed_out"


async def test_tool_without_approval_runs_at_once(rig: Rig) -> None:
    rig.book.notes.extend(["a", "b"])
    rig.llm.queue(tool_call("count_notes", {}), text("2件です"))

    events = await collect(rig.agent.run(rig.request(), "メモ何件？"))

    assert not of_type(events, ev.ApprovalRequired)
    assert of_type(events, ev.ToolExecuting)[0].approved_by == "not_needed"
    assert of_type(events, ev.ToolResult)[0].output == 2


async def test_always_allow_grant_skips_the_question_next_time(rig: Rig) -> None:
    rig.llm.queue(tool_call("add_note", {"text": "one"}), text("ok"))

    async def always(event: ev.AgentEvent) -> None:
        if isinstance(event, ev.ApprovalRequired):
            await rig.approvals.decide(event.approval_id, 100, Decision.ALWAYS)

    await converse(rig, rig.agent.run(rig.request(), "メモ1"), always)
    rig.llm.queue(tool_call("add_note", {"text": "two"}), text("ok"))
    events = await collect(rig.agent.run(rig.request(), "メモ2"))

    assert not of_type(events, ev.ApprovalRequired)
    assert of_type(events, ev.ToolExecuting)[0].approved_by == "grant"
    assert rig.book.notes == ["one", "two"]
    assert [g.tool_name for g in await rig.approvals.grants(100, guild_id=GUILD)] == ["add_note"]


async def test_invalid_json_arguments_go_back_to_the_model_quoting_them(rig: Rig) -> None:
    rig.llm.queue(tool_call("add_note", '{"text": "tomorrow'), text("もう一度お願いします"))

    events = await collect(rig.agent.run(rig.request(), "メモ"))

    result = of_type(events, ev.ToolResult)[0]
    assert result.is_error and "not valid JSON" in result.output
    assert '{"text": "tomorrow' in result.output
    sent_back = rig.llm.requests[1].messages[-1]
    assert sent_back["role"] == "tool" and '"is_error": true' in sent_back["content"]
    assert isinstance(events[-1], ev.Done) and events[-1].reason == "answered"


async def test_schema_violation_goes_back_to_the_model(rig: Rig) -> None:
    rig.llm.queue(tool_call("add_note", {"text": "x", "priority": "high"}), text("直します"))

    events = await collect(rig.agent.run(rig.request(), "メモ"))

    result = of_type(events, ev.ToolResult)[0]
    assert result.is_error and "priority" in result.output and '"high"' in result.output
    assert not of_type(events, ev.ApprovalRequired)


async def test_a_tool_that_raises_becomes_an_error_result(rig: Rig) -> None:
    rig.llm.queue(tool_call("explode", {}), text("失敗しました"))

    events = await collect(rig.agent.run(rig.request(), "爆発して"))

    result = of_type(events, ev.ToolResult)[0]
    assert result.is_error and result.output == "RuntimeError: disk on fire"
    assert isinstance(events[-1], ev.Done)


async def test_a_tool_over_its_timeout_becomes_an_error_result(rig: Rig) -> None:
    rig.llm.queue(tool_call("slow", {}), text("遅すぎました"))

    events = await collect(rig.agent.run(rig.request(), "ゆっくり"))

    result = of_type(events, ev.ToolResult)[0]
    assert result.is_error and "did not finish within 0.2 seconds" in result.output


async def test_tool_error_tells_the_model_what_to_fix(rig: Rig) -> None:
    rig.llm.queue(tool_call("add_note", {"text": "  "}), text("何を書きますか？"))

    async def approve(event: ev.AgentEvent) -> None:
        if isinstance(event, ev.ApprovalRequired):
            await rig.approvals.decide(event.approval_id, 100, Decision.APPROVE)

    events = await converse(rig, rig.agent.run(rig.request(), "メモ"), approve)

    expected = "the note is empty: ask the user what to write"
    assert of_type(events, ev.ToolResult)[0].output == expected


async def test_unknown_tool_is_reported_to_the_model(rig: Rig) -> None:
    rig.llm.queue(tool_call("launch_rockets", {}), text("そのツールはありません"))

    events = await collect(rig.agent.run(rig.request(), "ロケット"))

    result = of_type(events, ev.ToolResult)[0]
    assert result.is_error and "launch_rockets" in result.output


async def test_max_steps_ends_with_a_notice(rig: Rig) -> None:
    rig.llm.rule = lambda request: tool_call("count_notes", {})

    events = await collect(rig.agent.run(rig.request(), "数えて"))

    assert rig.llm.request_count == 3
    # The member asked in Japanese and reads Japanese; the model's note stays English.
    assert "3回" in of_type(events, ev.Notice)[0].text
    assert isinstance(events[-1], ev.Done) and events[-1].reason == "max_steps"
    stored = [s.message for s in await rig.agent.store.all("c10:u100")]
    assert isinstance(stored[-1], m.NoticeMessage) and "3 steps" in stored[-1].text


async def test_several_tool_calls_in_one_turn_are_each_gated(rig: Rig) -> None:
    rig.llm.queue(
        tool_calls([tool_call("add_note", {"text": "a"}), tool_call("add_note", {"text": "b"})]),
        text("2件メモしました"),
    )
    asked: list[int] = []

    async def approve(event: ev.AgentEvent) -> None:
        if isinstance(event, ev.ApprovalRequired):
            asked.append(event.approval_id)
            await rig.approvals.decide(event.approval_id, 100, Decision.APPROVE)

    await converse(rig, rig.agent.run(rig.request(), "aとbをメモ"), approve)

    assert len(asked) == 2 and asked[0] != asked[1]
    assert rig.book.notes == ["a", "b"]


async def test_two_calls_of_one_turn_are_asked_together_and_rejecting_both_runs_neither(
    rig: Rig,
) -> None:
    rig.llm.queue(
        tool_calls([tool_call("add_note", {"text": "a"}), tool_call("add_note", {"text": "b"})]),
    )
    asked: list[ev.ApprovalRequired] = []

    async def reject(event: ev.AgentEvent) -> None:
        if isinstance(event, ev.ApprovalRequired):
            asked.append(event)
            await rig.approvals.decide(event.approval_id, 100, Decision.REJECT)

    events = await converse(rig, rig.agent.run(rig.request(), "aとb"), reject)

    # Both cards before any decision; the first lists the two.
    assert asked[0].batch == (("add_note", {"text": "a"}), ("add_note", {"text": "b"}))
    assert asked[1].batch == ()
    assert [e.reason for e in of_type(events, ev.ToolRejected)] == ["rejected", "rejected"]
    assert isinstance(events[-1], ev.Done) and events[-1].reason == "rejected"
    assert rig.book.notes == [] and rig.llm.request_count == 1


async def test_rejecting_a_call_asked_alone_never_runs_the_calls_after_it(rig: Rig) -> None:
    rig.llm.queue(
        tool_calls([tool_call("add_note", {"text": "a"}), tool_call("count_notes", {})]),
    )

    async def reject(event: ev.AgentEvent) -> None:
        if isinstance(event, ev.ApprovalRequired):
            await rig.approvals.decide(event.approval_id, 100, Decision.REJECT)

    events = await converse(rig, rig.agent.run(rig.request(), "aをメモして数えて"), reject)

    assert [e.reason for e in of_type(events, ev.ToolRejected)] == ["rejected", "after_rejection"]
    assert rig.book.notes == []


async def test_llm_errors_become_a_failed_event_with_a_sentence(rig: Rig) -> None:
    cases = [
        (auth_error(), "auth", "an admin has been told in the log"),
        (rate_limited(retry_after=0), "rate_limit", "try again"),
        (context_length_exceeded(), "context_too_long", "too long"),
        (server_error(), "server_error", "try again"),
    ]
    for reply, kind, words in cases:
        rig.llm.queue(reply)
        events = await collect(rig.agent.run(rig.request(language="en"), "hello"))
        failed = events[-1]
        assert isinstance(failed, ev.Failed), kind
        assert failed.kind == kind and words in failed.message
        assert "Traceback" not in failed.message


async def test_planning_round_tags_never_reach_the_user_or_history(rig: Rig) -> None:
    rig = rig.rebuilt()
    rig.settings = rig.settings.model_copy(update={"agent_planning": True})
    rig.agent.settings = rig.settings
    rig.llm.queue(text("今日はいい天気ですね！<no_tool>"))

    events = await collect(rig.agent.run(rig.request(), "やあ"))

    shown = "".join(d.text for d in of_type(events, ev.TextDelta))
    assert shown == "今日はいい天気ですね！"
    assert rig.llm.request_count == 1 and rig.llm.last_request.tools == []
    stored = [s.message for s in await rig.store.all("c10:u100")]
    assert isinstance(stored[-1], m.AssistantMessage)
    assert stored[-1].text == "今日はいい天気ですね！"


async def test_planning_round_asking_for_tools_continues_with_tools(rig: Rig) -> None:
    rig = rig.rebuilt()
    rig.settings = rig.settings.model_copy(update={"agent_planning": True})
    rig.agent.settings = rig.settings
    rig.llm.queue(text("数えますね。<need_tool>"), tool_call("count_notes", {}), text("0件です"))

    events = await collect(rig.agent.run(rig.request(), "メモ何件？"))

    assert "<need_tool>" not in "".join(d.text for d in of_type(events, ev.TextDelta))
    assert rig.llm.request_count == 3
    assert rig.llm.requests[0].tools == [] and rig.llm.requests[1].tool_names
    planned = rig.llm.requests[1].messages
    assert all("<need_tool>" not in (x.get("content") or "") for x in planned)


async def test_planning_round_without_a_tag_goes_on_to_the_tool_loop(rig: Rig) -> None:
    rig = rig.rebuilt()
    rig.settings = rig.settings.model_copy(update={"agent_planning": True})
    rig.agent.settings = rig.settings
    rig.llm.queue(text("メモの数を確認しますね。"), tool_call("count_notes", {}), text("0件です"))

    events = await collect(rig.agent.run(rig.request(), "メモ何件？"))

    assert events[-1] == ev.Done("0件です", "answered", events[-1].usage)
    assert rig.llm.request_count == 3
    assert rig.llm.requests[0].tools == [] and rig.llm.requests[1].tool_names
    after_plan = rig.llm.requests[1].messages[-3:-1]
    assert after_plan == [
        {"role": "assistant", "content": "メモの数を確認しますね。"},
        {"role": "user", "content": "[continue]"},
    ]


async def test_a_tool_scoped_to_another_guild_is_refused_when_named(rig: Rig) -> None:
    @tool(requires_approval=False, guild_id=2)
    async def guild_secret(ctx: ToolContext) -> str:
        """Only for guild 2."""
        rig.book.notes.append("leaked")
        return "secret"

    rig.agent.registry.register(guild_secret)
    general = rig.agent.handlers["general"]
    rig.agent.handlers["general"] = replace(general, tools=(*general.tools, "guild_secret"))
    rig.llm.queue(tool_call("guild_secret", {}), text("使えませんでした"))

    events = await collect(rig.agent.run(rig.request(), "秘密を教えて"))  # from guild 1

    assert "guild_secret" not in rig.llm.requests[0].tool_names
    result = of_type(events, ev.ToolResult)[0]
    assert result.is_error and "no tool called 'guild_secret'" in result.output
    assert "guild_secret" not in result.output.split("Available tools:")[1]
    assert rig.book.notes == []
