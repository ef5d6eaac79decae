"""The server notebook in Discord: a note written after approval, /notes list, show, delete."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.members.permissions import Person
from tests.e2e.harness import RunningBot, approval_card, custom_ids, running_bot
from tests.fakes.discord_server import (
    ADMIN_ID,
    GENERAL_CHANNEL_ID,
    GUILD_ID,
    HANA_ID,
    TARO_ID,
    FakeDiscord,
)
from tests.fakes.llm_server import ScriptedLLM, text, tool_call

pytestmark = pytest.mark.e2e

NOTE = {"text": "旅行の集合は東京駅の丸の内北口に8時", "title": "旅行の集合"}


async def _write(otomo: RunningBot, author: int, body: str, title: str) -> int:
    notebook = otomo.app.core.deps.notebook
    note = await notebook.write(GUILD_ID, GENERAL_CHANNEL_ID, Person(author, "taro"), body, title)
    return note.id


async def test_a_member_asks_to_note_something_and_it_is_saved_after_approval(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(tool_call("write_note", NOTE), text("メモしました！"))
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        await otomo.mention("これメモしといて、旅行の集合は東京駅の丸の内北口に8時")
        await fake.wait_until(lambda: approval_card(fake) is not None, timeout=10)
        card = approval_card(fake)
        assert card is not None
        approve = next(c for c in custom_ids(card) if c.endswith(":approve"))

        await fake.click_button(int(card["id"]), approve, HANA_ID)
        await fake.wait_for_message(GENERAL_CHANNEL_ID, lambda m: "メモしました" in m["content"])
        await otomo.idle()

        offered = llm.requests[0].tool_names
        assert {"write_note", "read_note", "list_notes", "search_knowledge"} <= set(offered)
        listing = await otomo.app.core.deps.notebook.page(GUILD_ID)
        assert [(n.title, n.author_id) for n in listing.notes] == [("旅行の集合", HANA_ID)]


async def test_chat_mentions_can_read_the_notebook_too(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(tool_call("list_notes", {}), text("メモは1件あるよ"))
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        await _write(otomo, TARO_ID, "牛乳と卵", "買い出し")

        _, replies = await otomo.ask("暇だなー、なんかメモあったっけ")

        assert "1件" in replies[-1]["content"]
        tool_result = llm.last_request.messages_with_role("tool")[-1]["content"]
        assert "買い出し" in tool_result and "taro" in tool_result


async def test_members_list_search_and_read_notes_privately(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    async with running_bot(tmp_path, fake=fake, llm=llm, DEV_GUILD_ID=GUILD_ID) as otomo:
        trip = await _write(otomo, TARO_ID, "集合は東京駅に8時", "旅行の集合")
        await _write(otomo, TARO_ID, "牛乳と卵", "買い出し")

        listed = await (await fake.invoke_slash("notes list", user_id=HANA_ID)).wait_response()
        found = await (
            await fake.invoke_slash("notes list", {"search": "旅行"}, user_id=HANA_ID)
        ).wait_response()
        shown = await (
            await fake.invoke_slash("notes show", {"note": trip}, user_id=HANA_ID)
        ).wait_response()

        assert listed["data"]["flags"] & 64
        assert listed["data"]["content"].index("買い出し") < listed["data"]["content"].index("旅行")
        assert "旅行の集合" in found["data"]["content"]
        assert "買い出し" not in found["data"]["content"]
        assert "集合は東京駅に8時" in shown["data"]["content"]
        assert "taro" in shown["data"]["content"]


async def test_only_the_author_or_a_moderator_deletes_a_note_after_confirming(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    async with running_bot(tmp_path, fake=fake, llm=llm, DEV_GUILD_ID=GUILD_ID) as otomo:
        note = await _write(otomo, TARO_ID, "集合は東京駅に8時", "旅行の集合")

        refused = await (
            await fake.invoke_slash("notes delete", {"note": note}, user_id=HANA_ID)
        ).wait_response()
        asked = await fake.invoke_slash("notes delete", {"note": note}, user_id=ADMIN_ID)
        question = await asked.wait_response()
        message = asked.original_message()
        assert message is not None
        confirm = next(c for c in custom_ids(message) if c.endswith(":yes"))
        clicked = await fake.click_button(int(message["id"]), confirm, ADMIN_ID)
        answer = await clicked.wait_response()

        assert "taro" in refused["data"]["content"] and not refused["data"].get("components")
        assert question["data"]["flags"] & 64 and "削除しますか" in question["data"]["content"]
        assert "削除しました" in answer["data"]["content"]
        assert (await otomo.app.core.deps.notebook.page(GUILD_ID)).total == 0


async def test_note_numbers_are_suggested_as_you_type(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    async with running_bot(tmp_path, fake=fake, llm=llm, DEV_GUILD_ID=GUILD_ID) as otomo:
        trip = await _write(otomo, TARO_ID, "集合は東京駅に8時", "旅行の集合")
        await _write(otomo, TARO_ID, "牛乳と卵", "買い出し")

        suggested = await (
            await fake.autocomplete("notes show", {"note": "旅行"}, "note")
        ).wait_response()

        assert [c["value"] for c in suggested["data"]["choices"]] == [trip]


async def test_a_question_matching_a_note_gets_it_in_the_prompt_with_its_citation(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(text("東京駅の丸の内北口に8時だよ（出典: メモ #1「旅行の集合」）"))
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        note = await _write(otomo, TARO_ID, "東京駅の丸の内北口に8時", "旅行の集合")

        await otomo.ask("旅行の集合場所どこだっけ？")

        system = llm.requests[0].system
        assert "<notes>" in system and f"出典: メモ #{note}「旅行の集合」" in system
