"""Message actions end to end (right-click a message → Apps): "Remind me about this" reads the
time from a form and delivers a reminder linking to the message; "Ask Otomo about this" answers
privately with the message fenced as context, and posts the answer only at the asker's click."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.i18n import replies
from bot.runtime.clock import ManualClock
from tests.e2e.harness import custom_ids, running_bot
from tests.fakes.discord_server import (
    GENERAL_CHANNEL_ID,
    GUILD_ID,
    HANA_ID,
    RANDOM_CHANNEL_ID,
    SECOND_GENERAL_CHANNEL_ID,
    SECOND_GUILD_ID,
    SORA_ID,
    TARO_ID,
    FakeDiscord,
    Json,
)
from tests.fakes.llm_server import ScriptedLLM, text

pytestmark = pytest.mark.e2e

TOKYO = ZoneInfo("Asia/Tokyo")
EPHEMERAL = 64
MODAL = 9
REMIND = "Remind me about this"
ASK = "Ask Otomo about this"


@pytest.fixture
def clock() -> ManualClock:
    """20:00 in Tokyo, weeks ahead of the real clock (tests deliver with run_due())."""
    day = datetime.now(TOKYO).date() + timedelta(days=60)
    return ManualClock(datetime.combine(day, time(20, 0), tzinfo=TOKYO))


async def act(fake: FakeDiscord, name: str, message: Json, user_id: int = HANA_ID) -> Json:
    """A member runs the message command on message; the bot's first answer."""
    opened = await fake.invoke_message_command(name, int(message["id"]), user_id=user_id)
    return await opened.wait_response()


async def submit(fake: FakeDiscord, form: str, fields: dict[str, str]) -> Json:
    """The member submits the form last opened; the bot's private answer."""
    return await (await fake.submit_modal(form, fields)).wait_followup()


def tomorrow_at(clock: ManualClock, hour: int) -> datetime:
    """hour:00 tomorrow in Tokyo."""
    day = clock.now().astimezone(TOKYO).date() + timedelta(days=1)
    return datetime.combine(day, time(hour, 0), tzinfo=TOKYO).astimezone(UTC)


async def test_remind_me_about_a_message_reads_the_time_and_delivers_its_link_and_first_line(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    due = tomorrow_at(clock, 9)
    llm.queue(text("NONE"), text(due.astimezone(TOKYO).strftime("%Y-%m-%dT%H:%M")))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        synced = {c["name"]: c for c in fake.commands(None) if c["type"] == 3}
        assert synced[REMIND]["name_localizations"] == {"ja": "このメッセージをリマインド"}
        assert synced[ASK]["name_localizations"] == {"ja": "Otomo に聞く"}
        said = await fake.send_user_message(
            GENERAL_CHANNEL_ID, TARO_ID, "明日の会議は10時から\n資料を忘れずに"
        )

        form = await act(fake, REMIND, said)
        unclear = await fake.submit_modal("remind:form", {"when": "そのうち", "note": ""})
        refusal = await unclear.wait_followup()
        await act(fake, REMIND, said)
        asked = await fake.submit_modal("remind:form", {"when": "明日の9時", "note": ""})
        confirmed = await asked.wait_followup()

        clock.set(due)
        assert await otomo.reminders.run_due() == 1
        delivered = fake.messages(GENERAL_CHANNEL_ID)[-1]

    assert form["type"] == MODAL and form["data"]["title"] == "このメッセージをリマインド"
    assert refusal["flags"] & EPHEMERAL
    assert refusal["content"] == replies.REMIND_TIME_UNREADABLE("ja", typed="そのうち")
    assert confirmed["flags"] & EPHEMERAL and "リマインドします" in confirmed["content"]
    link = f"https://discord.com/channels/{GUILD_ID}/{GENERAL_CHANNEL_ID}/{said['id']}"
    assert link in confirmed["content"]
    # Read as a mention's time is: the reminder handler's instructions, the member's words.
    reading = llm.requests[1]
    assert "Setting reminders" in reading.system
    assert reading.messages[-1]["content"] == "明日の9時"
    assert llm.request_count == 2
    # Delivered in the message's channel, pinging only the clicker, quoting the first line.
    assert delivered["content"].startswith(f"<@{HANA_ID}> ⏰")
    assert [int(u) for u in delivered["allowed_mentions"]["users"]] == [HANA_ID]
    embed = delivered["embeds"][0]
    assert embed["description"] == "「明日の会議は10時から」"
    assert link in str(embed["fields"])


async def test_message_actions_refuse_in_english_where_they_cannot_be_used(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    fake.world.client_locale = "en-US"
    llm.queue(text("Noted."))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        await otomo.app.core.servers.change(
            GUILD_ID, {"answer_mode": "allow", "answer_channels": frozenset({RANDOM_CHANNEL_ID})}, 1
        )
        silenced = await fake.send_user_message(GENERAL_CHANNEL_ID, TARO_ID, "meeting at 10")
        refused = [await act(fake, name, silenced) for name in (REMIND, ASK)]
        # A DM is answered (one model call), then its message is right-clicked.
        dm, _ = await otomo.ask_dm("note to self")
        in_dm = await act(fake, REMIND, dm)

        said = await fake.send_user_message(RANDOM_CHANNEL_ID, TARO_ID, "meeting at 10")
        await act(fake, REMIND, said)
        past = await fake.submit_modal("remind:form", {"when": "2020-01-01T09:00"})
        too_late = await past.wait_followup()
        await act(fake, REMIND, said)
        await fake.delete_user_message(int(said["id"]))
        gone = await fake.submit_modal("remind:form", {"when": "2099-01-01T09:00"})
        deleted = await gone.wait_followup()

    for response in refused:
        assert response["data"]["flags"] & EPHEMERAL
        assert response["data"]["content"] == replies.ACTION_NOT_HERE("en")
    assert in_dm["data"]["content"] == replies.ACTION_ONLY_IN_SERVERS("en")
    assert too_late["content"] == replies.REMIND_TIME_PAST("en", typed="2020-01-01T09:00")
    assert deleted["content"] == replies.ACTION_MESSAGE_GONE("en")
    # An ISO time needs no model, and nothing refused ever reached it (the DM's answer did).
    assert llm.request_count == 1


async def test_ask_about_a_message_answers_privately_and_only_the_asker_posts_it(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM
) -> None:
    llm.queue(text("会議の連絡です。議題は予算と旅行です。"))
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        said = await fake.send_user_message(
            GENERAL_CHANNEL_ID,
            TARO_ID,
            "明日の会議は10時から",
            attachments=[("agenda.txt", b"1. budget\n2. trip", "text/plain")],
        )
        opened = await fake.invoke_message_command(ASK, int(said["id"]), user_id=HANA_ID)
        form = await opened.wait_response()
        asked = await fake.submit_modal("ask:form", {"question": ""})
        answer = await asked.wait_followup()
        (button,) = custom_ids(answer)

        someone_else = await fake.click_button(int(answer["id"]), button, TARO_ID)
        refusal = await someone_else.wait_response()
        posting = await fake.click_button(int(answer["id"]), button, HANA_ID)
        public = await posting.wait_followup()
        await otomo.idle()
        channel = fake.messages(GENERAL_CHANNEL_ID)

    assert form["data"]["title"] == "Otomo に聞く"
    assert answer["flags"] & EPHEMERAL
    assert answer["embeds"][0]["description"] == "会議の連絡です。議題は予算と旅行です。"
    assert button == f"ask:pub:{HANA_ID}:{said['id']}"
    # The other member's words and file reach the model fenced; it is offered no tool that acts.
    (request,) = llm.requests
    asked_text = str(request.messages_with_role("user")[-1]["content"])
    assert '<replied_to by="Taro">\n明日の会議は10時から\n</replied_to>' in asked_text
    assert '<file name="agenda.txt">' in asked_text and "budget" in asked_text
    assert replies.ASK_DEFAULT_QUESTION("ja") in asked_text
    assert "create_reminder" not in request.tool_names
    assert refusal["data"]["flags"] & EPHEMERAL
    assert refusal["data"]["content"] == replies.ASK_NOT_YOURS("ja")
    link = f"https://discord.com/channels/{GUILD_ID}/{GENERAL_CHANNEL_ID}/{said['id']}"
    assert public["content"] == replies.ASK_POSTED_BY("ja", asker=f"<@{HANA_ID}>", link=link)
    assert not public.get("flags", 0) & EPHEMERAL
    assert public["embeds"][0]["description"] == "会議の連絡です。議題は予算と旅行です。"
    assert public["allowed_mentions"]["parse"] == []
    assert channel[-1]["id"] == public["id"]


async def test_a_spent_budget_refuses_what_needs_the_model_in_that_server_only(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM
) -> None:
    fake = two_servers
    llm.queue(text("最初の答え"), text("もう一方のサーバーの答え"))
    async with running_bot(tmp_path, fake=fake, llm=llm) as otomo:
        await otomo.app.core.servers.change(SECOND_GUILD_ID, {"server_daily_tokens": 1}, 1)
        said, _ = await otomo.ask(
            "こんにちは", channel_id=SECOND_GENERAL_CHANNEL_ID, user_id=SORA_ID
        )
        await act(fake, ASK, said, SORA_ID)
        spent = await submit(fake, "ask:form", {"question": "これは何？"})
        await act(fake, REMIND, said, SORA_ID)
        unread = await submit(fake, "remind:form", {"when": "明日の9時"})
        await act(fake, REMIND, said, SORA_ID)
        soon = (datetime.now(TOKYO) + timedelta(days=2)).strftime("%Y-%m-%dT09:00")
        exact = await submit(fake, "remind:form", {"when": soon})

        here = await fake.send_user_message(GENERAL_CHANNEL_ID, TARO_ID, "明日は雨")
        await act(fake, ASK, here)
        answered = await submit(fake, "ask:form", {"question": "傘いる？"})

    assert spent["flags"] & EPHEMERAL
    assert "利用上限" in spent["content"]
    # Reading a time in words takes the model, so the spent budget refuses it; an exact time
    # takes no model call, so it is set.
    assert "利用上限" in unread["content"]
    assert "リマインドします" in exact["content"]
    assert answered["embeds"][0]["description"] == "もう一方のサーバーの答え"
    assert llm.request_count == 2
