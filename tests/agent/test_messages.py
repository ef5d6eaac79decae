"""Typed history flattens into valid chat messages with one exhaustive to_llm()."""

from __future__ import annotations

from bot.agent.conversation import messages as m


def test_every_kind_converts_and_excluded_ones_disappear() -> None:
    history: list[m.Message] = [
        m.SummaryMessage(text="前回: 歯医者の予約の話"),
        m.UserMessage(text="こんにちは", author_name="taro"),
        m.UserMessage(text="hidden", exclude_from_context=True),
        m.AssistantMessage(
            text="調べます", tool_calls=[m.ToolCall(id="a", name="t", arguments="{}")]
        ),
        m.ToolResultMessage(call_id="a", name="t", content='{"output": 1}'),
        m.AssistantMessage(text="", tool_calls=[m.ToolCall(id="b", name="t", arguments="{}")]),
        m.ToolRejectedMessage(call_id="b", name="t", reason="interrupted", partial={"done": 2}),
        m.NoticeMessage(text="stopped"),
    ]

    flat = m.to_llm(history)

    assert flat[0] == {"role": "user", "content": "<summary>\n前回: 歯医者の予約の話\n</summary>"}
    assert flat[1] == {"role": "user", "content": "taro: こんにちは"}
    assert flat[2]["tool_calls"][0]["id"] == "a" and flat[2]["content"] == "調べます"
    assert flat[3] == {"role": "tool", "tool_call_id": "a", "content": '{"output": 1}'}
    assert flat[4]["content"] is None
    assert flat[5]["role"] == "tool" and '"done": 2' in flat[5]["content"]
    assert "interrupted" in flat[5]["content"]
    assert flat[6]["content"].startswith("(notice")
    assert len(flat) == 7


def test_a_call_without_result_is_closed_and_an_orphan_result_dropped() -> None:
    history: list[m.Message] = [
        m.ToolResultMessage(call_id="gone", name="t", content="{}"),
        m.UserMessage(text="hi"),
        m.AssistantMessage(tool_calls=[m.ToolCall(id="open", name="t", arguments="{}")]),
        m.UserMessage(text="next"),
    ]

    flat = m.to_llm(history)

    assert [x["role"] for x in flat] == ["user", "assistant", "tool", "user"]
    assert flat[2]["tool_call_id"] == "open"


def test_messages_round_trip_through_storage_json() -> None:
    original = m.ToolRejectedMessage(call_id="c", name="n", reason="rejected", detail="no")

    assert m.load(m.dump(original)) == original
