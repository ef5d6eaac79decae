"""Memory members control: /otomo memory, /otomo forget, retention at start, /otomo usage."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from bot.agent.conversation import messages as m
from bot.agent.conversation.history import conversation_key
from bot.agent.conversation.retention import RETENTION_JOB_ID
from bot.discord_ui.cards.embed import CardState
from bot.runtime.clock import ManualClock
from tests.conftest import START
from tests.e2e.harness import (
    RunningBot,
    approval_card,
    card_is,
    custom_ids,
    running_bot,
)
from tests.fakes.discord_server import (
    ADMIN_ID,
    GENERAL_CHANNEL_ID,
    GUILD_ID,
    HANA_ID,
    RANDOM_CHANNEL_ID,
    FakeDiscord,
    Json,
)
from tests.fakes.llm_server import ScriptedLLM, text, tool_call

pytestmark = pytest.mark.e2e


async def _slash(otomo: RunningBot, name: str, options: Json | None = None, **kw: int) -> Json:
    record = await otomo.fake.invoke_slash(name, options or {}, **kw)
    return await record.wait_response()


async def _confirm(otomo: RunningBot, options: Json, channel_id: int = GENERAL_CHANNEL_ID) -> Json:
    """Run /otomo forget and press its Delete button; return the answer."""
    asked = await otomo.fake.invoke_slash(
        "otomo forget", options, user_id=HANA_ID, channel_id=channel_id
    )
    question = await asked.wait_response()
    assert question["data"]["flags"] & 64
    message = asked.original_message()
    assert message is not None
    confirm = next(c for c in custom_ids(message) if c.endswith(":yes"))
    clicked = await otomo.fake.click_button(int(message["id"]), confirm, HANA_ID)
    return await clicked.wait_response()


async def test_memory_shows_the_count_and_summary_kept_for_me_in_this_channel(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.rule = lambda request: text("はーい")
    async with running_bot(tmp_path, fake=fake, llm=llm, DEV_GUILD_ID=GUILD_ID) as otomo:
        empty = await _slash(otomo, "otomo memory", user_id=HANA_ID)
        await otomo.ask("暇だなー")
        key = conversation_key(GENERAL_CHANNEL_ID, HANA_ID)
        await otomo.app.core.store.append(key, m.SummaryMessage(text="映画の話をした"))

        answer = await _slash(otomo, "otomo memory", user_id=HANA_ID)
        elsewhere = await _slash(
            otomo, "otomo memory", user_id=HANA_ID, channel_id=RANDOM_CHANNEL_ID
        )

        assert "何も覚えていません" in empty["data"]["content"]
        content = answer["data"]["content"]
        assert answer["data"]["flags"] & 64
        assert "**3**" in content and "あなたの発言: 1" in content
        assert "映画の話をした" in content and "90" in content
        assert "何も覚えていません" in elsewhere["data"]["content"]
        assert "他の 1 か所" in elsewhere["data"]["content"]


async def test_forget_deletes_my_history_here_after_confirming(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.rule = lambda request: text("はーい")
    async with running_bot(tmp_path, fake=fake, llm=llm, DEV_GUILD_ID=GUILD_ID) as otomo:
        await otomo.ask("暇だなー")
        await otomo.ask("暇だなー", channel_id=RANDOM_CHANNEL_ID)

        answer = await _confirm(otomo, {})

        assert "メッセージ 2 件" in answer["data"]["content"]
        store = otomo.app.core.store
        assert await store.all(conversation_key(GENERAL_CHANNEL_ID, HANA_ID)) == []
        assert len(await store.all(conversation_key(RANDOM_CHANNEL_ID, HANA_ID))) == 2
        # The next mention starts afresh: the model no longer sees the old turn.
        await otomo.ask("こんにちは")
        said = [x["content"] for x in llm.last_request.messages_with_role("user")]
        assert len(said) == 1 and said[0].endswith("こんにちは")


async def test_forget_everywhere_deletes_every_channel(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.rule = lambda request: text("はーい")
    async with running_bot(tmp_path, fake=fake, llm=llm, DEV_GUILD_ID=GUILD_ID) as otomo:
        await otomo.ask("暇だなー")
        await otomo.ask("暇だなー", channel_id=RANDOM_CHANNEL_ID)

        answer = await _confirm(otomo, {"scope": "everywhere"})

        assert "メッセージ 4 件（会話 2 件）" in answer["data"]["content"]
        assert await otomo.app.core.store.all(conversation_key(RANDOM_CHANNEL_ID, HANA_ID)) == []


async def test_history_past_its_retention_is_deleted_when_the_bot_starts(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.rule = lambda request: text("はーい")
    key = conversation_key(GENERAL_CHANNEL_ID, HANA_ID)
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=ManualClock(START)) as otomo:
        await otomo.ask("暇だなー")
        assert len(await otomo.app.core.store.all(key)) == 2

    later = ManualClock(START + timedelta(days=8))
    async with running_bot(
        tmp_path, fake=fake, llm=llm, clock=later, HISTORY_RETENTION_DAYS=7
    ) as otomo:
        assert await otomo.app.core.store.all(key) == []
        assert otomo.app.core.scheduler.get_job(RETENTION_JOB_ID) is not None


async def test_usage_shows_admins_calls_per_day_and_refuses_members(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.rule = lambda request: text("はーい")
    async with running_bot(tmp_path, fake=fake, llm=llm, DEV_GUILD_ID=GUILD_ID) as otomo:
        await otomo.ask("暇だなー")
        await otomo.ask("暇だなー")

        refused = await _slash(otomo, "otomo usage", user_id=HANA_ID)
        asked = await fake.invoke_slash("otomo usage", {"days": 3}, user_id=ADMIN_ID)
        await asked.wait_response()
        answer = await asked.wait_followup()

        assert "管理者だけです" in refused["data"]["content"]
        table = answer["content"]
        assert answer["flags"] & 64
        total = next(line for line in table.splitlines() if line.startswith("total"))
        assert total.split()[1:3] == ["2", "0"]
        assert len([line for line in table.splitlines() if line[:2].isdigit()]) == 3
        assert "chat 2" in table


async def test_usage_shows_the_prompt_tokens_the_provider_served_from_its_cache(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    llm.prefix_cache = True
    llm.rule = lambda request: text("はーい")
    async with running_bot(
        tmp_path, fake=fake, llm=llm, clock=clock, DEV_GUILD_ID=GUILD_ID
    ) as otomo:
        await otomo.ask("暇だなー")
        clock.advance(timedelta(minutes=3))  # another minute: the prompt's time changed
        await otomo.ask("なんか面白い話して")

        asked = await fake.invoke_slash("otomo usage", {"days": 1}, user_id=ADMIN_ID)
        await asked.wait_response()
        answer = await asked.wait_followup()

    first, second = llm.requests
    # The second mention repeats the first request up to its context: the rules, the persona,
    # the first line; the provider served all that from its cache.
    prefix = first.messages[:-1]
    assert second.messages[: len(prefix)] == prefix
    prefix_chars = sum(len(json.dumps(m["content"], ensure_ascii=False)) for m in prefix)
    assert second.cached_tokens >= prefix_chars // 4 > 0
    lines = answer["content"].splitlines()
    header = next(line for line in lines if line.startswith("day"))
    total = next(line for line in lines if line.startswith("total"))
    assert header.split()[5] == "cached"
    assert total.split()[4] == str(second.cached_tokens)


async def test_forgetting_cancels_a_card_still_waiting_so_nothing_runs(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(tool_call("write_note", {"text": "秘密の合言葉", "title": "合言葉"}))
    async with running_bot(tmp_path, fake=fake, llm=llm, DEV_GUILD_ID=GUILD_ID) as otomo:
        await otomo.mention("これメモしといて、秘密の合言葉")
        await fake.wait_until(lambda: approval_card(fake) is not None, timeout=10)
        await otomo.idle()
        card = approval_card(fake)
        assert card is not None

        await _confirm(otomo, {})
        await otomo.idle()

        assert (await otomo.app.core.deps.notebook.page(GUILD_ID)).total == 0
        assert llm.request_count == 1


async def test_forgetting_ends_a_waiting_card_at_once_and_says_why(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(tool_call("write_note", {"text": "秘密の合言葉", "title": "合言葉"}))
    async with running_bot(tmp_path, fake=fake, llm=llm, DEV_GUILD_ID=GUILD_ID) as otomo:
        await otomo.mention("これメモしといて、秘密の合言葉")
        await fake.wait_until(lambda: approval_card(fake) is not None, timeout=10)
        await otomo.idle()
        card = approval_card(fake)
        assert card is not None

        await _confirm(otomo, {})
        # No click needed: the card is final once the forget is done.
        final = fake.message(int(card["id"]))
        assert final is not None
        assert card_is(CardState.INVALIDATED, final)
        assert custom_ids(final) == []  # its buttons are gone
        shown = str(final["embeds"])
        assert "/otomo forget" in shown
        assert "秘密の合言葉" not in shown  # the forgotten arguments are not shown any more
