"""Cards in members' words: titles and labels in the member's language, values for people,
results in a sentence, no raw keys or ids; read-only calls get a status line; a call that
cannot work goes back to the model without a card."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bot.runtime.clock import ManualClock
from tests.conftest import START
from tests.e2e.harness import RunningBot, approval_card, custom_ids, running_bot
from tests.fakes.discord_server import GENERAL_CHANNEL_ID, HANA_ID, TARO_ID, FakeDiscord, Json
from tests.fakes.llm_server import ScriptedLLM, text, tool_call

pytestmark = pytest.mark.e2e

REMINDER = {"when": "2026-12-01T09:00", "what": "歯医者", "repeat": None}
# Words and shapes written for the model or for developers, never for members.
RAW = ("create_reminder", "when", "what", "repeat", "created", "null", "true", "note", "user ")


def _embed_text(message: Json) -> str:
    return json.dumps(message["embeds"][0], ensure_ascii=False)


def _assert_for_people(message: Json) -> None:
    """No raw key, JSON value, id or model note in the card."""
    shown = _embed_text(message)
    for raw in RAW:
        assert f'"{raw}' not in shown and f"**{raw}" not in shown and f" {raw}:" not in shown
    # The only long numbers are inside Discord's mention and timestamp markup.
    bare = re.sub(r"<(@|t:)\d+(:[A-Za-z])?>", "", shown)
    assert not re.search(r"\d{15,}", bare), bare
    assert "external" not in shown and "外部" not in shown
    assert "footer" not in message["embeds"][0]


def _labels(message: Json) -> list[str]:
    return [c["label"] for row in message["components"] for c in row["components"]]


async def _approve(otomo: RunningBot, card: Json, user_id: int = HANA_ID) -> None:
    approve = next(c for c in custom_ids(card) if c.endswith(":approve"))
    click = await otomo.fake.click_button(int(card["id"]), approve, user_id)
    await click.wait_response()
    await otomo.idle()


async def _asked(otomo: RunningBot, said: str) -> Json:
    await otomo.mention(said)
    await otomo.fake.wait_until(lambda: approval_card(otomo.fake) is not None, timeout=10)
    card = approval_card(otomo.fake)
    assert card is not None
    return card


async def test_a_reminder_card_in_japanese_reads_as_a_member_would_say_it(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(tool_call("create_reminder", REMINDER), text("登録しました"))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=ManualClock(START)) as otomo:
        card = await _asked(otomo, "12月1日の9時に歯医者ってリマインドして")
        embed = card["embeds"][0]
        fields = {f["name"]: f["value"] for f in embed["fields"]}

        assert embed["title"] == "🔧 リマインドを登録"
        assert re.fullmatch(r"<t:\d+:F>", fields["いつ"])
        assert fields["内容"] == "歯医者"
        assert "繰り返し" not in fields  # a one-time reminder: nothing to show
        assert f"<@{HANA_ID}>" in fields["承認"]
        # The state line and the buttons speak the member's language too, one at a time.
        assert embed["description"] == "🔐 承認待ち"
        assert _labels(card) == ["承認", "却下", "常に許可", "編集"]
        _assert_for_people(card)

        await _approve(otomo, card)
        final = fake.message(int(card["id"]))
        assert final is not None
        done = {f["name"]: f["value"] for f in final["embeds"][0]["fields"]}
        assert "歯医者" in done["結果"] and "<t:" in done["結果"]
        assert done["決めた人"] == f"<@{HANA_ID}>"
        _assert_for_people(final)


async def test_a_member_writing_english_reads_the_card_in_english(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    repeating = {**REMINDER, "repeat": {"kind": "weekly", "days_of_week": ["mon", "thu"]}}
    llm.queue(tool_call("create_reminder", repeating), text("Done"))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=ManualClock(START)) as otomo:
        card = await _asked(otomo, "remind me about the dentist on Dec 1 at 9")
        embed = card["embeds"][0]
        fields = {f["name"]: f["value"] for f in embed["fields"]}

        assert embed["title"] == "🔧 Set a reminder"
        assert set(fields) >= {"When", "What", "Repeats", "Approval"}
        assert fields["Repeats"] == "every week on Monday and Thursday"
        assert embed["description"] == "🔐 Needs approval"
        assert _labels(card) == ["Approve", "Reject", "Always allow", "Edit"]
        # Everything but what the member asked to be reminded of (歯医者, their own words).
        ours = {**embed, "fields": [f for f in embed["fields"] if f["name"] != "What"]}
        shown = json.dumps([ours, card["components"]], ensure_ascii=False)
        assert not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", shown), shown
        _assert_for_people(card)


@pytest.mark.parametrize(
    ("locale", "title", "label"),
    [("ja", "却下の理由", "理由（任意）"), ("en-US", "Why reject?", "Reason (optional)")],
)
async def test_the_reject_form_follows_the_clickers_discord_not_the_cards_language(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, locale: str, title: str, label: str
) -> None:
    llm.queue(tool_call("create_reminder", REMINDER), text("OK"))
    fake.world.client_locale = locale
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=ManualClock(START)) as otomo:
        card = await _asked(otomo, "remind me about the dentist on Dec 1 at 9")
        reject = next(c for c in custom_ids(card) if c.endswith(":reject"))
        click = await fake.click_button(int(card["id"]), reject, HANA_ID)
        modal = await click.wait_response()

        assert _labels(card)[:2] == ["Approve", "Reject"]  # the card: the message's language
        assert modal["type"] == 9
        assert modal["data"]["title"] == title
        assert modal["data"]["components"][0]["components"][0]["label"] == label


async def test_a_read_only_call_gets_a_status_line_not_an_approval_card(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(tool_call("list_reminders", {}), text("ありません"))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=ManualClock(START)) as otomo:
        _, replies = await otomo.ask("リマインドの一覧を見せて")

        (line,) = [m for m in replies if m.get("embeds")]
        embed = line["embeds"][0]
        assert "title" not in embed and not embed.get("fields")
        assert embed["description"] == "✅ リマインドはありません。"
        assert not any(c.startswith("apv:") for m in replies for c in custom_ids(m))


async def test_a_time_in_the_past_goes_back_to_the_model_without_a_card(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    past = {"when": "2026-11-01T09:00", "what": "歯医者"}
    llm.queue(tool_call("create_reminder", past), text("いつにしますか？"))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=ManualClock(START)) as otomo:
        _, replies = await otomo.ask("11月1日の9時に歯医者ってリマインドして")

        assert [m for m in replies if m.get("embeds")] == []
        result = llm.last_request.messages[-1]
        assert result["role"] == "tool" and '"is_error": true' in result["content"]
        assert "in the past" in result["content"]
        assert replies[-1]["content"] == "いつにしますか？"


async def test_cancelling_another_members_reminder_makes_no_card(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=ManualClock(START)) as otomo:
        theirs = await otomo.app.core.deps.reminders.create(
            user_id=TARO_ID,
            user_display_name="taro",
            guild_id=None,
            channel_id=GENERAL_CHANNEL_ID,
            when="2026-12-01T09:00",
            content="会議",
            tz=otomo.settings.timezone,
        )
        llm.queue(tool_call("cancel_reminder", {"reminder_id": theirs.id}), text("できません"))
        _, replies = await otomo.ask("会議のリマインドを消して")

        assert [m for m in replies if m.get("embeds")] == []
        assert "belongs to another user" in llm.last_request.messages[-1]["content"]
        tz = otomo.settings.timezone
        assert [v.content for v in await otomo.app.core.deps.reminders.list_pending(TARO_ID, tz)]


async def test_a_cancel_card_names_the_reminder_not_its_id(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=ManualClock(START)) as otomo:
        mine = await otomo.app.core.deps.reminders.create(
            user_id=HANA_ID,
            user_display_name="hana",
            guild_id=None,
            channel_id=GENERAL_CHANNEL_ID,
            when="2026-12-01T09:00",
            content="歯医者",
            tz=otomo.settings.timezone,
        )
        llm.queue(tool_call("cancel_reminder", {"reminder_id": mine.id}), text("取り消しました"))
        card = await _asked(otomo, "歯医者のリマインドを消して")
        fields = {f["name"]: f["value"] for f in card["embeds"][0]["fields"]}

        assert card["embeds"][0]["title"] == "🔧 リマインドを取り消す"
        assert re.fullmatch(r"歯医者 — <t:\d+:F>", fields["対象のリマインド"])
        _assert_for_people(card)

        await _approve(otomo, card)
        final = fake.message(int(card["id"]))
        assert final is not None
        done = {f["name"]: f["value"] for f in final["embeds"][0]["fields"]}
        assert "歯医者" in done["結果"] and "取り消しました" in done["結果"]
        _assert_for_people(final)
