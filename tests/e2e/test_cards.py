"""Every tool card ends in a final state with its own text: Stop, model errors and expiry."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from bot.discord_ui.cards.embed import CardState
from bot.i18n import answers
from bot.runtime.clock import ManualClock
from tests.conftest import START
from tests.e2e.harness import approval_card, card_is, custom_ids, running_bot
from tests.fakes.discord_server import GENERAL_CHANNEL_ID, FakeDiscord, Json
from tests.fakes.llm_server import ScriptedLLM, hang, tool_call

pytestmark = pytest.mark.e2e

REMINDER = {"when": "2026-12-01T09:00", "what": "歯医者"}
# The role chunk, the chunk naming the call and a first fragment of its arguments (litellm
# passes a chunk on when the next one arrives): the call never completes.
UNTIL_THE_TOOL_NAME = 3


def _cards(fake: FakeDiscord) -> list[Json]:
    return [m for m in fake.messages(GENERAL_CHANNEL_ID) if m.get("embeds")]


async def test_a_call_cut_off_by_a_model_error_never_shows_a_card(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    # A call is shown once it is complete and checked: one the model never finished is not.
    llm.queue(hang(tool_call("create_reminder", REMINDER), after_chunks=UNTIL_THE_TOOL_NAME))
    async with running_bot(tmp_path, fake=fake, llm=llm, LLM_TIMEOUT_SECONDS=1) as otomo:
        _, replies = await otomo.ask("明日の9時に歯医者ってリマインドして")

        assert [m for m in replies if m.get("embeds")] == []
        assert replies[-1]["content"].startswith("ごめんなさい、うまく答えられませんでした。")


async def test_a_timed_out_approval_says_it_expired_not_rejected(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    clock = ManualClock(START)
    llm.queue(tool_call("create_reminder", REMINDER))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        await otomo.mention("12月1日の9時に歯医者ってリマインドして")
        await fake.wait_until(lambda: approval_card(fake) is not None, timeout=10)
        card = approval_card(fake)
        assert card is not None
        await otomo.idle()

        clock.advance(timedelta(seconds=301))
        assert await otomo.app.bot.approval_clicks.expire_overdue_cards() == 1
        await otomo.idle()

        final = fake.message(int(card["id"]))
        assert final is not None and card_is(CardState.EXPIRED, final)
        assert custom_ids(final) == []
        closing = otomo.bot_messages_after(card)[-1]["content"]
        assert closing == answers.CLOSING_EXPIRED("ja")
        assert llm.request_count == 1
