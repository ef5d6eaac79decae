"""History is bounded; older turns are summarised in the background, never delaying replies."""

from __future__ import annotations

from bot.agent.conversation import messages as m
from bot.agent.conversation.history import ConversationStore
from tests.agent.conftest import Rig, collect
from tests.fakes.llm_server import text


async def test_context_is_bounded_and_starts_at_a_user_message(rig: Rig) -> None:
    store = ConversationStore(rig.database.sessions, rig.clock, max_messages=4)
    key = "c1:u1"
    for i in range(3):
        await store.append(key, m.UserMessage(text=f"q{i}"), m.AssistantMessage(text=f"a{i}"))
    await store.append(
        key, m.AssistantMessage(tool_calls=[m.ToolCall(id="x", name="t", arguments="{}")])
    )

    window = await store.context(key)

    assert [type(x).__name__ for x in window] == [
        "UserMessage",
        "AssistantMessage",
        "AssistantMessage",
    ]
    assert isinstance(window[0], m.UserMessage) and window[0].text == "q2"


async def test_old_turns_are_summarised_after_the_reply(rig: Rig) -> None:
    rig.store.max_messages = 6
    summaries: list[str] = []

    def answer(request):  # type: ignore[no-untyped-def]
        if request.stream:
            return text("はい")
        summaries.append(request.messages[0]["content"])
        return text("以前: 天気と映画の話をした")

    rig.llm.rule = answer
    for i in range(4):
        await collect(rig.agent.run(rig.request(), f"質問{i}"))
        await rig.store.wait_for_summaries()

    assert len(summaries) == 1
    window = await rig.store.context("c10:u100")
    assert isinstance(window[0], m.SummaryMessage)
    assert window[0].text == "以前: 天気と映画の話をした"
    await collect(rig.agent.run(rig.request(), "覚えてる？"))
    sent = rig.llm.last_request.messages
    assert "<summary>" in sent[1]["content"]
    assert all("質問0" not in (x.get("content") or "") for x in sent)
