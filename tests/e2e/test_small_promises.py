"""Small promises of a run: no intent tags shown, no model call for nothing, the right reason for
calls that never ran, one "at position", steps counted right, summaries read in order."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.agent.conversation import messages as m
from bot.agent.conversation.history import conversation_key
from bot.i18n import answers
from bot.runtime.clock import ManualClock
from tests.conftest import START
from tests.e2e.harness import RunningBot, approval_card, custom_ids, running_bot
from tests.fakes.discord_server import GENERAL_CHANNEL_ID, HANA_ID, FakeDiscord, Json
from tests.fakes.llm_server import ChatRequest, Reply, ScriptedLLM, text, tool_call, tool_calls

pytestmark = pytest.mark.e2e

DENTIST = {"when": "2026-12-01T09:00", "what": "歯医者"}
KEY = conversation_key(GENERAL_CHANNEL_ID, HANA_ID)


async def _stored(otomo: RunningBot) -> list[m.Message]:
    return [s.message for s in await otomo.app.core.store.all(KEY)]


async def _card(otomo: RunningBot, text_: str) -> Json:
    await otomo.mention(text_)
    await otomo.fake.wait_until(lambda: approval_card(otomo.fake) is not None, timeout=10)
    await otomo.idle()
    card = approval_card(otomo.fake)
    assert card is not None
    return card


def _button(card: Json, action: str) -> str:
    return next(c for c in custom_ids(card) if c.startswith("apv:") and c.endswith(f":{action}"))


def _tool_messages(request: ChatRequest) -> dict[str, str]:
    return {x["tool_call_id"]: x["content"] for x in request.messages if x["role"] == "tool"}


async def test_intent_tags_reach_neither_discord_nor_history_after_the_planning_round(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(
        text("確認しますね。<need_tool>"),
        tool_call("list_reminders", {}),
        text("リマインダーは今ありません。<no_tool>"),
    )
    async with running_bot(tmp_path, fake=fake, llm=llm, AGENT_PLANNING="true") as otomo:
        _, replies = await otomo.ask("リマインダーある？")

        shown = " ".join(r["content"] for r in replies)
        assert "リマインダーは今ありません。" in shown
        assert "<no_tool>" not in shown and "<need_tool>" not in shown
        said = [x.text for x in await _stored(otomo) if isinstance(x, m.AssistantMessage)]
        assert said[-1] == "リマインダーは今ありません。"
        assert not any("<" in x for x in said)


async def test_a_mention_of_only_invisible_characters_costs_no_model_call(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        _, replies = await otomo.ask("\u200b\u200b \u2060\ufeff")

        assert [r["content"] for r in replies] == [answers.EMPTY_MENTION("ja")]
        assert llm.request_count == 0


async def test_a_call_after_a_rejected_one_is_told_it_did_not_run_because_of_the_rejection(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(
        tool_calls(
            [
                tool_call("create_reminder", DENTIST, "call_dentist"),
                # Needs no approval: it would run right after the first, had that been approved.
                tool_call("list_reminders", {}, "call_list"),
            ]
        )
    )
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=ManualClock(START)) as otomo:
        card = await _card(otomo, "歯医者をリマインドして、一覧も見せて")
        click = await fake.click_button(int(card["id"]), _button(card, "reject"), HANA_ID)
        modal = await click.wait_response()
        field = modal["data"]["components"][0]["components"][0]["custom_id"]
        submitted = await fake.submit_modal(
            modal["data"]["custom_id"], {field: ""}, HANA_ID, GENERAL_CHANNEL_ID, int(card["id"])
        )
        await submitted.wait_response()
        await otomo.idle()
        llm.queue(text("了解です。"))
        await otomo.ask("やっぱりいいや")

        results = _tool_messages(llm.last_request)
        assert "The user rejected this tool call" in results["call_dentist"]
        assert "the user rejected an earlier tool call" in results["call_list"]
        assert "moved on" not in results["call_list"]


async def test_invalid_json_arguments_are_described_with_one_at_position(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(tool_call("list_reminders", '{"limit": "5', "call_bad"), text("もう一度試します。"))
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        await otomo.ask("リマインダー見せて")

        error = _tool_messages(llm.last_request)["call_bad"]
        assert "Unterminated string starting at position 10" in error
        assert error.count("at position") == 1


async def test_the_max_steps_notice_says_1_step(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(tool_call("list_reminders", {}))
    async with running_bot(tmp_path, fake=fake, llm=llm, AGENT_MAX_STEPS=1) as otomo:
        _, replies = await otomo.ask("リマインダー見せて")

        assert replies[-1]["content"] == "-# " + answers.OUT_OF_ONE_STEP("ja")


async def test_max_steps_counts_the_rounds_of_the_whole_turn_across_an_approval(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    # Round 1 asks for approval; after the click, round 2 lists reminders: that is 2 steps.
    llm.queue(
        tool_call("create_reminder", DENTIST),
        tool_call("list_reminders", {}),
        tool_call("list_reminders", {}),
        text("終わりました"),
    )
    async with running_bot(
        tmp_path, fake=fake, llm=llm, clock=ManualClock(START), AGENT_MAX_STEPS=2
    ) as otomo:
        card = await _card(otomo, "12月1日の9時に歯医者ってリマインドして")
        click = await fake.click_button(int(card["id"]), _button(card, "approve"), HANA_ID)
        await click.wait_response()
        said = "-# " + answers.OUT_OF_STEPS("ja", steps=2)
        await fake.wait_for_message(GENERAL_CHANNEL_ID, lambda x: x["content"] == said)
        await otomo.idle()
        assert llm.request_count == 2


async def test_the_summariser_reads_the_old_summary_before_the_turns_kept_after_it(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    summaries = iter(["要約その一", "要約その二"])

    def answer(request: ChatRequest) -> Reply:
        return text(next(summaries)) if not request.stream else text("はい")

    llm.rule = answer
    async with running_bot(tmp_path, fake=fake, llm=llm, HISTORY_MAX_MESSAGES=4) as otomo:
        for turn in ("一つ目", "二つ目", "三つ目", "四つ目"):
            await otomo.ask(turn)
            await otomo.app.core.store.wait_for_summaries()

        (_, second) = [r for r in llm.requests if not r.stream]
        # Between the instructions and "Write the summary now.": the earlier summary first,
        # then the turn it did not cover.
        read = [x["content"] for x in second.messages[1:-1]]
        assert read == ["<summary>\n要約その一\n</summary>", "Hana: 三つ目", "はい"]
