"""Tool cards in Discord: approve, reject with a reason, always allow, strangers, restarts."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from bot.agent.approvals.service import Decision
from bot.discord_ui.cards.embed import CardState, state_line
from bot.runtime.clock import ManualClock
from tests.conftest import START
from tests.e2e.harness import (
    RunningBot,
    approval_card,
    card_is,
    card_state,
    custom_ids,
    running_bot,
)
from tests.fakes.discord_server import (
    ADMIN_ID,
    GENERAL_CHANNEL_ID,
    HANA_ID,
    TARO_ID,
    FakeDiscord,
    Json,
)
from tests.fakes.llm_server import ScriptedLLM, text, tool_call

pytestmark = pytest.mark.e2e

REMINDER = {"when": "2026-12-01T09:00", "what": "歯医者"}


async def _card(otomo: RunningBot) -> Json:
    """Mention the bot so it asks to create a reminder; return the card once it has buttons."""
    await otomo.mention("12月1日の9時に歯医者ってリマインドして")
    await otomo.fake.wait_until(lambda: approval_card(otomo.fake) is not None, timeout=10)
    card = approval_card(otomo.fake)
    assert card is not None
    return card


def _button(card: Json, action: str) -> str:
    return next(
        cid for cid in custom_ids(card) if cid.startswith("apv:") and cid.endswith(f":{action}")
    )


async def _reminders(otomo: RunningBot, user_id: int = HANA_ID) -> list[str]:
    tz = otomo.app.core.settings.timezone
    return [v.content for v in await otomo.app.core.deps.reminders.list_pending(user_id, tz)]


async def test_approve_runs_the_tool_and_the_card_shows_each_state(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    clock = ManualClock(START)
    llm.queue(tool_call("create_reminder", REMINDER), text("12月1日 9:00 に登録しました！"))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        card = await _card(otomo)
        assert card_is(CardState.NEEDS_APPROVAL, card)
        assert f"<@{HANA_ID}>" in json.dumps(card["embeds"][0], ensure_ascii=False)

        click = await fake.click_button(int(card["id"]), _button(card, "approve"), HANA_ID)
        response = await click.wait_response()
        await fake.wait_for_message(GENERAL_CHANNEL_ID, lambda m: "登録しました" in m["content"])
        await otomo.idle()

        assert response["type"] == 6  # acknowledged at once, before the tool ran
        states = [card_state(e) for e in fake.edits(int(card["id"])) if e.get("embeds")]
        assert state_line(CardState.RUNNING, "ja") in states
        final = fake.message(int(card["id"]))
        assert final is not None and card_is(CardState.DONE, final)
        assert custom_ids(final) == []
        assert await _reminders(otomo) == ["歯医者"]
        tool_result = llm.last_request.messages[-1]
        assert tool_result["role"] == "tool" and '"created": true' in tool_result["content"]


async def test_reject_with_a_reason_reaches_the_model_next_turn(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(tool_call("create_reminder", REMINDER))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=ManualClock(START)) as otomo:
        card = await _card(otomo)
        click = await fake.click_button(int(card["id"]), _button(card, "reject"), HANA_ID)
        modal = await click.wait_response()
        assert modal["type"] == 9
        field = modal["data"]["components"][0]["components"][0]["custom_id"]
        submitted = await fake.submit_modal(
            modal["data"]["custom_id"],
            {field: "日付が違う"},
            HANA_ID,
            GENERAL_CHANNEL_ID,
            int(card["id"]),
        )
        await submitted.wait_response()
        await fake.wait_until(lambda: card_is(CardState.REJECTED, fake.message(int(card["id"]))))
        await otomo.idle()
        assert await _reminders(otomo) == []

        llm.queue(text("失礼しました。何日ですか？"))
        await otomo.ask("ごめん、やっぱり教えて")
        rejected = next(m for m in llm.last_request.messages if m["role"] == "tool")
        assert "rejected" in rejected["content"] and "日付が違う" in rejected["content"]


async def test_always_allow_skips_the_card_next_time_and_is_listed(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(
        tool_call("create_reminder", REMINDER),
        text("登録しました"),
        tool_call("create_reminder", {**REMINDER, "what": "薬"}),
        text("これも登録"),
    )
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=ManualClock(START)) as otomo:
        card = await _card(otomo)
        await fake.click_button(int(card["id"]), _button(card, "always"), HANA_ID)
        await fake.wait_for_message(GENERAL_CHANNEL_ID, lambda m: m["content"] == "登録しました")
        await otomo.idle()
        _, replies = await otomo.ask("薬もリマインドして")

        assert not any(custom_ids(m) and "apv:" in custom_ids(m)[0] for m in replies)
        assert sorted(await _reminders(otomo)) == ["歯医者", "薬"]
        listed = await fake.invoke_slash("tools allowed", user_id=HANA_ID)
        answer = await listed.wait_response()
        assert "create_reminder" in answer["data"]["content"]


async def test_a_click_by_someone_else_is_refused_privately(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(tool_call("create_reminder", REMINDER), text("登録しました"))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=ManualClock(START)) as otomo:
        card = await _card(otomo)
        click = await fake.click_button(int(card["id"]), _button(card, "approve"), TARO_ID)
        refusal = await click.wait_response()

        assert refusal["type"] == 4
        assert refusal["data"]["flags"] & 64  # ephemeral
        assert (
            refusal["data"]["content"]
            == "決められるのは Hana さん（依頼した本人）か承認者だけです。"
        )
        assert await _reminders(otomo) == []
        assert custom_ids(fake.message(int(card["id"])) or {})  # buttons still there

        admin = await fake.click_button(int(card["id"]), _button(card, "approve"), ADMIN_ID)
        assert (await admin.wait_response())["type"] == 6
        await fake.wait_for_message(GENERAL_CHANNEL_ID, lambda m: m["content"] == "登録しました")
        await otomo.idle()
        assert await _reminders(otomo) == ["歯医者"]


async def test_a_click_after_a_restart_resumes_the_conversation(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    clock = ManualClock(START)
    llm.queue(tool_call("create_reminder", REMINDER))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        card = await _card(otomo)
    # The bot is gone; the card and its buttons stay in Discord.
    llm.queue(text("再起動後でも登録できました"))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        click = await fake.click_button(int(card["id"]), _button(card, "approve"), HANA_ID)
        assert (await click.wait_response())["type"] == 6
        await fake.wait_for_message(
            GENERAL_CHANNEL_ID, lambda m: m["content"] == "再起動後でも登録できました"
        )
        await otomo.idle()

        assert await _reminders(otomo) == ["歯医者"]
        assert card_is(CardState.DONE, fake.message(int(card["id"])) or {})


async def test_a_card_that_expired_while_the_bot_was_down_says_so(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    clock = ManualClock(START)
    llm.queue(tool_call("create_reminder", REMINDER))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        card = await _card(otomo)
    clock.advance(timedelta(minutes=6))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        await fake.wait_until(lambda: card_is(CardState.EXPIRED, fake.message(int(card["id"]))))

        assert custom_ids(fake.message(int(card["id"])) or {}) == []
        assert await _reminders(otomo) == []
        assert llm.request_count == 1


async def test_a_card_whose_post_failed_still_runs_the_tool_when_approved(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    # Discord shows the buttons but answers 503: the answer that asked for approval dies.
    llm.queue(tool_call("create_reminder", REMINDER))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=ManualClock(START)) as otomo:
        fake.inject(
            "PATCH", rf"/channels/{GENERAL_CHANNEL_ID}/messages/\d+", status=503, applied=True
        )
        card = await _card(otomo)
        await otomo.idle()

        llm.queue(text("登録しました"))
        click = await fake.click_button(int(card["id"]), _button(card, "approve"), HANA_ID)
        assert (await click.wait_response())["type"] == 6
        await fake.wait_for_message(GENERAL_CHANNEL_ID, lambda m: m["content"] == "登録しました")
        await otomo.idle()

        assert await _reminders(otomo) == ["歯医者"]
        assert card_is(CardState.DONE, fake.message(int(card["id"])) or {})


async def test_an_approval_recorded_just_before_a_crash_runs_after_the_restart(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    clock = ManualClock(START)
    llm.queue(tool_call("create_reminder", REMINDER))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        card = await _card(otomo)
        approval_id = int(_button(card, "approve").split(":")[1])
        # The click is recorded as the row update, then the process stops before it resumes.
        outcome = await otomo.app.core.approvals.decide(approval_id, HANA_ID, Decision.APPROVE)
        assert outcome.changed
    clock.advance(timedelta(minutes=1))
    llm.queue(text("再起動後に登録しました"))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        await fake.wait_for_message(
            GENERAL_CHANNEL_ID, lambda m: m["content"] == "再起動後に登録しました"
        )
        await otomo.idle()
        # The card's last edit may reach Discord after the answer on a busy machine.
        await fake.wait_until(
            lambda: card_is(CardState.DONE, fake.message(int(card["id"])) or {}),
            10,
            what="the card showing done",
        )

        assert await _reminders(otomo) == ["歯医者"]
        assert llm.request_count == 2
