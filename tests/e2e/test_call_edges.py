"""The edges of a tool call's life: Stop while an approved tool runs, an admin's rights after
the click, and a crash while the tool runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.discord_ui.cards.embed import CardState
from bot.members.permissions import Person
from bot.runtime.clock import ManualClock
from tests.conftest import START
from tests.e2e.harness import (
    RunningBot,
    approval_card,
    bot_environment,
    card_is,
    custom_ids,
    running_bot,
)
from tests.e2e.processes import BotProcess, process_environment
from tests.fakes.discord_server import (
    ADMIN_ID,
    GENERAL_CHANNEL_ID,
    GUILD_ID,
    HANA_ID,
    TARO_ID,
    FakeDiscord,
    Json,
)
from tests.fakes.llm_server import ScriptedLLM, text, tool_call
from tests.fakes.tavily import API_KEY, FakeTavily

pytestmark = pytest.mark.e2e

QUERY = "サーバーブースト 特典 最新"
LIMIT = 60.0


async def _approve(fake: FakeDiscord, user_id: int = HANA_ID) -> Json:
    """Wait for the approval card, approve it as user_id; return the card."""
    await fake.wait_until(lambda: approval_card(fake) is not None, timeout=LIMIT)
    card = approval_card(fake)
    assert card is not None
    approve = next(c for c in custom_ids(card) if c.endswith(":approve"))
    clicked = await fake.click_button(int(card["id"]), approve, user_id)
    assert (await clicked.wait_response())["type"] == 6
    return card


def _stop_button(message: Json | None) -> str | None:
    return next((c for c in custom_ids(message or {}) if c.startswith("stop:")), None)


async def test_an_approved_tool_that_is_running_can_be_stopped_from_its_card(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(tool_call("web_search", {"query": QUERY}), text("止めました"))
    async with FakeTavily() as tavily:
        tavily.hold()
        async with running_bot(
            tmp_path, fake=fake, llm=llm, TAVILY_API_KEY=API_KEY, TAVILY_API_BASE=tavily.url
        ) as otomo:
            await otomo.mention("サーバーブーストの最新の特典を調べて")
            card = await _approve(fake)
            card_id = int(card["id"])
            await fake.wait_until(lambda: len(tavily.requests) == 1, timeout=LIMIT)
            await fake.wait_until(
                lambda: _stop_button(fake.message(card_id)) is not None, timeout=LIMIT
            )
            running = fake.message(card_id)
            stop = _stop_button(running)
            assert stop is not None and card_is(CardState.RUNNING, running or {})

            clicked = await fake.click_button(card_id, stop, HANA_ID)
            await clicked.wait_response()
            await fake.wait_until(
                lambda: card_is(CardState.INTERRUPTED, fake.message(card_id) or {}), timeout=LIMIT
            )
            await otomo.idle()
            tavily.release()
            stopped = fake.message(card_id)

            llm.queue(text("了解"))
            await otomo.ask("やっぱりいいや")

    assert _stop_button(stopped) is None
    told = [m for m in llm.last_request.messages if m["role"] == "tool"]
    assert "interrupted" in told[-1]["content"]
    assert llm.request_count == 2  # the stopped search made no second model call


async def test_the_answer_after_an_approved_call_loses_its_stop_button_when_it_ends(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(
        tool_call("create_reminder", {"when": "2026-12-01T09:00", "what": "歯医者"}),
        text("登録しました"),
    )
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=ManualClock(START)) as otomo:
        await otomo.mention("12月1日の9時に歯医者ってリマインドして")
        card = await _approve(fake)
        answer = await fake.wait_for_message(
            GENERAL_CHANNEL_ID, lambda m: m["content"] == "登録しました", timeout=LIMIT
        )
        await otomo.idle()

    assert _stop_button(fake.message(int(answer["id"]))) is None
    assert custom_ids(fake.message(int(card["id"])) or {}) == []


async def _taros_note(otomo: RunningBot) -> int:
    note = await otomo.app.core.deps.notebook.write(
        GUILD_ID, GENERAL_CHANNEL_ID, Person(TARO_ID, "taro"), "集合は8時", "集合"
    )
    return note.id


async def test_an_admin_who_approves_their_own_call_keeps_their_admin_rights(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        note_id = await _taros_note(otomo)
        llm.queue(
            tool_call("write_note", {"note_id": note_id, "text": "集合は9時に変更"}),
            text("直しました"),
        )
        await otomo.mention("メモの集合時間を9時に直しといて", user_id=ADMIN_ID)
        await _approve(fake, ADMIN_ID)
        await fake.wait_for_message(GENERAL_CHANNEL_ID, lambda m: m["content"] == "直しました")
        await otomo.idle()
        note = await otomo.app.core.deps.notebook.get(GUILD_ID, note_id)

    result = json.loads(llm.last_request.messages_with_role("tool")[-1]["content"])
    assert result["is_error"] is False, result
    assert note.body == "集合は9時に変更"


UNKNOWN = "outcome is unknown"


async def test_a_crash_while_an_approved_tool_runs_ends_its_card_and_history_truthfully(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(tool_call("web_search", {"query": QUERY}))
    async with FakeTavily() as tavily:
        tavily.hold()
        environ = process_environment(
            bot_environment(fake, llm, tmp_path, TAVILY_API_KEY=API_KEY, TAVILY_API_BASE=tavily.url)
        )
        first = await BotProcess(environ, tmp_path).start()
        try:
            await first.wait_for_line("Otomo is ready")
            mention = await fake.send_user_message(
                GENERAL_CHANNEL_ID,
                HANA_ID,
                f"<@{fake.world.bot.id}> サーバーブーストの最新の特典を調べて",
                mention_bot=True,
            )
            card = await _approve(fake)
            card_id = int(card["id"])
            # The search has started (the fake holds it): the process dies mid-call.
            await fake.wait_until(lambda: len(tavily.requests) == 1, timeout=LIMIT)
            await fake.wait_until(
                lambda: card_is(CardState.RUNNING, fake.message(card_id) or {}), timeout=LIMIT
            )
        finally:
            await first.kill()
        second = await BotProcess(environ, tmp_path).start()
        try:
            await second.wait_for_line("Otomo is ready")
            await fake.wait_until(
                lambda: card_is(CardState.UNKNOWN_OUTCOME, fake.message(card_id) or {}),
                timeout=LIMIT,
            )
            llm.queue(text("検索は途中で止まったので、結果が分かりません。"))
            follow_up = await fake.send_user_message(
                GENERAL_CHANNEL_ID,
                HANA_ID,
                f"<@{fake.world.bot.id}> どうなった？",
                mention_bot=True,
            )
            await fake.wait_for_message(
                GENERAL_CHANNEL_ID, lambda m: "結果が分かりません" in m["content"], timeout=LIMIT
            )
        finally:
            await second.stop()
            tavily.release()

    assert int(follow_up["id"]) > int(mention["id"])
    told = llm.last_request.messages_with_role("tool")[-1]["content"]
    assert UNKNOWN in told and "cancelled" not in told
    assert custom_ids(fake.message(card_id) or {}) == []
