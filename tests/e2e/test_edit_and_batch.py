"""Edit a call before it runs, and decide the calls of one answer together: Approve all and
Reject all, strangers refused, decisions kept across a restart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.discord_ui.cards.embed import CardState
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
from tests.fakes.discord_server import GENERAL_CHANNEL_ID, HANA_ID, TARO_ID, FakeDiscord, Json
from tests.fakes.llm_server import ScriptedLLM, text, tool_call, tool_calls

pytestmark = pytest.mark.e2e

DENTIST = {"when": "2026-12-01T09:00", "what": "歯医者"}
HAIRCUT = {"when": "2026-12-02T18:00", "what": "美容院"}
ASKED = "12月1日の9時に歯医者、2日の18時に美容院ってリマインドして"
ASKED_EN = "Remind me of the dentist on Dec 1 at 9:00 and the hairdresser on Dec 2 at 18:00"


def _button(card: Json, action: str) -> str:
    return next(c for c in custom_ids(card) if c.startswith("apv:") and c.endswith(f":{action}"))


def _approval_cards(fake: FakeDiscord) -> list[Json]:
    return [
        m
        for m in fake.messages(GENERAL_CHANNEL_ID)
        if any(c.startswith("apv:") for c in custom_ids(m))
    ]


async def _reminders(otomo: RunningBot) -> list[tuple[str, str]]:
    tz = otomo.settings.timezone
    views = await otomo.app.core.deps.reminders.list_pending(HANA_ID, tz)
    return [(v.content, v.when_iso[:16]) for v in views]


async def _ask_two(otomo: RunningBot, asked: str = ASKED) -> list[Json]:
    """The member asks for two reminders in one answer; return the two cards."""
    await otomo.mention(asked)
    await otomo.fake.wait_until(lambda: len(_approval_cards(otomo.fake)) == 2, timeout=10)
    await otomo.idle()
    return _approval_cards(otomo.fake)


def _two_calls() -> object:
    return tool_calls(
        [
            tool_call("create_reminder", DENTIST, "call_a"),
            tool_call("create_reminder", HAIRCUT, "call_b"),
        ]
    )


async def _edit(
    otomo: RunningBot, card: Json, values: dict[str, str], user_id: int = HANA_ID
) -> Json:
    """Open the card's Edit form and submit values (field id → text); return the submission."""
    click = await otomo.fake.click_button(int(card["id"]), _button(card, "edit"), user_id)
    modal = await click.wait_response()
    assert modal["type"] == 9
    ids = [row["components"][0]["custom_id"] for row in modal["data"]["components"]]
    # Every argument of create_reminder, the optional ones too (empty when the call has none).
    assert ids == ["a:when", "a:what", "a:repeat", "a:for_member", "a:to_channel"]
    submitted = await otomo.fake.submit_modal(
        modal["data"]["custom_id"], values, user_id, GENERAL_CHANNEL_ID, int(card["id"])
    )
    await submitted.wait_response()
    return submitted


async def test_an_edited_call_runs_as_edited_and_the_model_is_told(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(tool_call("create_reminder", DENTIST), text("10時で登録しました"))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=ManualClock(START)) as otomo:
        await otomo.mention("12月1日の9時に歯医者ってリマインドして")
        await fake.wait_until(lambda: approval_card(fake) is not None, timeout=10)
        card = approval_card(fake)
        assert card is not None

        await _edit(otomo, card, {"a:when": "2026-12-01T10:00", "a:what": "歯医者（本院）"})
        await fake.wait_for_message(GENERAL_CHANNEL_ID, lambda m: "10時で登録" in m["content"])
        await otomo.idle()

        assert await _reminders(otomo) == [("歯医者（本院）", "2026-12-01T10:00")]
        told = json.loads(llm.last_request.messages[-1]["content"])
        changed = told["arguments_changed_by_member"]
        assert changed["you_sent"] == DENTIST
        assert changed["ran_with"] == {"when": "2026-12-01T10:00", "what": "歯医者（本院）"}
        final = fake.message(int(card["id"]))
        assert final is not None and card_is(CardState.DONE, final)
        assert "内容（変更後）" in {f["name"] for f in final["embeds"][0]["fields"]}


async def test_an_edit_that_cannot_run_is_answered_privately_and_the_card_stays(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(tool_call("create_reminder", DENTIST))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=ManualClock(START)) as otomo:
        await otomo.mention("12月1日の9時に歯医者ってリマインドして")
        await fake.wait_until(lambda: approval_card(fake) is not None, timeout=10)
        card = approval_card(fake)
        assert card is not None

        submitted = await _edit(otomo, card, {"a:when": "2026-11-01T10:00", "a:what": "歯医者"})
        why = await submitted.wait_followup()
        await otomo.idle()

        assert why["flags"] & 64 and "実行できません" in why["content"]
        assert "in the past" in why["content"]
        assert await _reminders(otomo) == []
        still = fake.message(int(card["id"]))
        assert still is not None and card_is(CardState.NEEDS_APPROVAL, still)
        assert _button(still, "approve")
        assert llm.request_count == 1


async def test_approve_all_runs_every_call_of_the_answer_once(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(_two_calls(), text("2件登録しました"))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=ManualClock(START)) as otomo:
        first, second = await _ask_two(otomo)
        # One card lists both and offers to decide them together; each keeps its own buttons.
        listed = {f["name"]: f["value"] for f in first["embeds"][0]["fields"]}
        assert listed["この回答で承認を待っている操作"].count("リマインドを登録") == 2
        assert _button(first, "all") and _button(first, "none")
        assert _button(second, "approve") and not any(
            c.endswith(":all") for c in custom_ids(second)
        )

        click = await fake.click_button(int(first["id"]), _button(first, "all"), HANA_ID)
        assert (await click.wait_response())["type"] == 6
        await fake.wait_for_message(GENERAL_CHANNEL_ID, lambda m: m["content"] == "2件登録しました")
        await otomo.idle()

        assert sorted(await _reminders(otomo)) == [
            ("歯医者", "2026-12-01T09:00"),
            ("美容院", "2026-12-02T18:00"),
        ]
        results = llm.last_request.messages_with_role("tool")
        assert [json.loads(r["content"])["output"]["created"] for r in results] == [True, True]
        assert llm.request_count == 2
        for card in (first, second):
            final = fake.message(int(card["id"]))
            assert final is not None and card_is(CardState.DONE, final) and custom_ids(final) == []


async def test_the_answer_after_approve_all_loses_its_stop_button_when_it_ends(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(_two_calls(), text("2件登録しました"))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=ManualClock(START)) as otomo:
        first, _ = await _ask_two(otomo)
        click = await fake.click_button(int(first["id"]), _button(first, "all"), HANA_ID)
        await click.wait_response()
        answer = await fake.wait_for_message(
            GENERAL_CHANNEL_ID, lambda m: m["content"] == "2件登録しました"
        )
        await otomo.idle()

    assert custom_ids(fake.message(int(answer["id"])) or {}) == []


async def test_the_batch_card_says_which_call_is_which(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(_two_calls())
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=ManualClock(START)) as otomo:
        first, _ = await _ask_two(otomo, ASKED_EN)

    listed = {f["name"]: f["value"] for f in first["embeds"][0]["fields"]}
    lines = listed["Waiting for approval in this answer"].splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("• Set a reminder") and "歯医者" in lines[0]
    assert lines[1].startswith("• Set a reminder") and "美容院" in lines[1]


@pytest.mark.parametrize(
    ("asked", "waiting", "running"),
    [(ASKED, "ほかの操作を待っています", "実行中"), (ASKED_EN, "waiting for", "Running")],
)
async def test_an_approved_call_waiting_for_the_others_says_it_waits_not_that_it_runs(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, asked: str, waiting: str, running: str
) -> None:
    llm.queue(_two_calls())
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=ManualClock(START)) as otomo:
        first, _ = await _ask_two(otomo, asked)
        click = await fake.click_button(int(first["id"]), _button(first, "approve"), HANA_ID)
        await click.wait_response()
        await otomo.idle()
        shown = fake.message(int(first["id"]))
        assert await _reminders(otomo) == []

    assert shown is not None
    line = card_state(shown)
    assert waiting in line and running not in line, line
    assert not card_is(CardState.RUNNING, shown)


async def test_reject_all_runs_nothing(tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM) -> None:
    llm.queue(_two_calls())
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=ManualClock(START)) as otomo:
        first, second = await _ask_two(otomo)

        click = await fake.click_button(int(first["id"]), _button(first, "none"), HANA_ID)
        await click.wait_response()
        await otomo.idle()

        assert await _reminders(otomo) == []
        assert llm.request_count == 1
        for card in (first, second):
            final = fake.message(int(card["id"]))
            assert final is not None and card_is(CardState.REJECTED, final)


async def test_a_stranger_cannot_approve_all(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(_two_calls())
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=ManualClock(START)) as otomo:
        first, _ = await _ask_two(otomo)

        for action in ("all", "edit"):
            click = await fake.click_button(int(first["id"]), _button(first, action), TARO_ID)
            refusal = await click.wait_response()
            assert refusal["type"] == 4 and refusal["data"]["flags"] & 64
            assert (
                refusal["data"]["content"]
                == "決められるのは Hana さん（依頼した本人）か承認者だけです。"
            )
        await otomo.idle()

        assert await _reminders(otomo) == []
        assert len(_approval_cards(fake)) == 2


async def test_an_edit_and_approve_all_survive_a_restart(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    clock = ManualClock(START)
    llm.queue(_two_calls())
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        first, second = await _ask_two(otomo)
        # The second call is edited (and so approved); the first still waits: nothing runs.
        await _edit(otomo, second, {"a:when": "2026-12-03T18:00", "a:what": "美容院"})
        await otomo.idle()
        assert await _reminders(otomo) == []
        assert llm.request_count == 1
    llm.queue(text("再起動後に登録しました"))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        click = await fake.click_button(int(first["id"]), _button(first, "all"), HANA_ID)
        await click.wait_response()
        await fake.wait_for_message(GENERAL_CHANNEL_ID, lambda m: "再起動後" in m["content"])
        await otomo.idle()

        assert sorted(await _reminders(otomo)) == [
            ("歯医者", "2026-12-01T09:00"),
            ("美容院", "2026-12-03T18:00"),
        ]
        told = llm.last_request.messages_with_role("tool")[-1]["content"]
        assert "arguments_changed_by_member" in told and "2026-12-03T18:00" in told


async def test_calls_decided_one_by_one_wait_for_each_other_then_each_goes_its_way(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(_two_calls(), text("歯医者だけ登録しました"))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=ManualClock(START)) as otomo:
        first, second = await _ask_two(otomo)

        click = await fake.click_button(int(first["id"]), _button(first, "approve"), HANA_ID)
        await click.wait_response()
        await otomo.idle()
        # Approved, but nothing runs while the other call of the answer waits.
        assert await _reminders(otomo) == []
        waiting = fake.message(int(first["id"]))
        assert waiting is not None and "承認しました" in json.dumps(waiting, ensure_ascii=False)

        click = await fake.click_button(int(second["id"]), _button(second, "reject"), HANA_ID)
        modal = await click.wait_response()
        field = modal["data"]["components"][0]["components"][0]["custom_id"]
        submitted = await fake.submit_modal(
            modal["data"]["custom_id"], {field: "美容院は自分で"}, HANA_ID, GENERAL_CHANNEL_ID
        )
        await submitted.wait_response()
        await fake.wait_for_message(GENERAL_CHANNEL_ID, lambda m: "歯医者だけ" in m["content"])
        await otomo.idle()

        assert await _reminders(otomo) == [("歯医者", "2026-12-01T09:00")]
        results = llm.last_request.messages_with_role("tool")
        assert '"created": true' in results[0]["content"]
        assert "rejected" in results[1]["content"] and "美容院は自分で" in results[1]["content"]
        assert card_is(CardState.DONE, fake.message(int(first["id"])) or {})
        assert card_is(CardState.REJECTED, fake.message(int(second["id"])) or {})
