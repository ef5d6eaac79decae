"""Reminders for someone else or a channel, end to end: the member is asked in the channel with
buttons only they may use; the reminder reaches them only after they accept, never after they
decline; stopping all from the asker refuses the next request; a channel reminder is refused
where the asker may not post."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from bot.reminders.recipients import Member, Target
from bot.reminders.table import Consent, Reminder, ReminderState
from bot.runtime.clock import ManualClock
from tests.e2e.harness import RunningBot, custom_ids, running_bot
from tests.fakes.discord.world import MEMBER_ROLE_ID, SEND_MESSAGES, World
from tests.fakes.discord_server import (
    ADMIN_ID,
    EVERYONE_ROLE_ID,
    GENERAL_CHANNEL_ID,
    GUILD_ID,
    HANA_ID,
    RANDOM_CHANNEL_ID,
    SECOND_GENERAL_CHANNEL_ID,
    SORA_ID,
    TARO_ID,
    FakeDiscord,
    Json,
)
from tests.fakes.llm_server import ScriptedLLM, text, tool_call

pytestmark = pytest.mark.e2e

TOKYO = ZoneInfo("Asia/Tokyo")
EPHEMERAL = 64
UPDATE_MESSAGE = 7


@pytest.fixture
def clock() -> ManualClock:
    """20:00 in Tokyo, weeks ahead of the real clock (tests deliver with run_due())."""
    day = datetime.now(TOKYO).date() + timedelta(days=60)
    return ManualClock(datetime.combine(day, time(20, 0), tzinfo=TOKYO))


@pytest.fixture
async def world() -> AsyncIterator[FakeDiscord]:
    """Two servers; in the first, #random is for the Member role only (taro may not post)."""
    shape = World.two_guilds()
    random = next(c for c in shape.first.channels if c.id == RANDOM_CHANNEL_ID)
    random.overwrites = [
        {"id": str(EVERYONE_ROLE_ID), "type": 0, "allow": "0", "deny": str(SEND_MESSAGES)},
        {"id": str(MEMBER_ROLE_ID), "type": 0, "allow": str(SEND_MESSAGES), "deny": "0"},
    ]
    async with FakeDiscord(shape) as server:
        yield server


def tomorrow_at_ten(clock: ManualClock) -> datetime:
    day = clock.now().astimezone(TOKYO).date() + timedelta(days=1)
    return datetime.combine(day, time(10, 0), tzinfo=TOKYO).astimezone(UTC)


def wall(instant: datetime) -> str:
    return instant.astimezone(TOKYO).strftime("%Y-%m-%dT%H:%M")


async def approve(otomo: RunningBot, after: int, user_id: int, channel_id: int) -> None:
    card = await otomo.fake.wait_for_message(
        channel_id, lambda m: any(c.startswith("apv:") for c in custom_ids(m)), after=after
    )
    approve = next(c for c in custom_ids(card) if c.endswith(":approve"))
    await (await otomo.fake.click_button(int(card["id"]), approve, user_id)).wait_response()
    await otomo.idle()


def request_of(fake: FakeDiscord, reminder_id: int, channel_id: int = GENERAL_CHANNEL_ID) -> Json:
    """The request for consent posted for a reminder."""
    return next(m for m in fake.messages(channel_id) if m.get("nonce") == f"r{reminder_id}a")


async def click(otomo: RunningBot, message: Json, custom_id: str, user_id: int) -> Json:
    return await (
        await otomo.fake.click_button(int(message["id"]), custom_id, user_id)
    ).wait_response()


async def rows(otomo: RunningBot) -> list[Reminder]:
    async with otomo.app.core.database.sessions() as session:
        return list(await session.scalars(select(Reminder).order_by(Reminder.id)))


def last_tool_result(llm: ScriptedLLM) -> dict[str, Any]:
    tool = [m for m in llm.requests[-1].messages if m["role"] == "tool"][-1]
    result: dict[str, Any] = json.loads(tool["content"])
    return result


async def test_a_reminder_for_someone_else_waits_for_their_consent_and_obeys_their_answer(
    tmp_path: Path, world: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    due = tomorrow_at_ten(clock)
    asked = {"when": wall(due), "what": "資料送って", "for_member": "@taro"}
    llm.queue(
        tool_call("create_reminder", asked),
        text("taro さんに確認を送りました。"),
        tool_call(
            "create_reminder", {**asked, "when": wall(due + timedelta(days=2)), "what": "もう一回"}
        ),
        text("taro さんはあなたからのリマインドを受け取らない設定です。"),
    )
    async with running_bot(tmp_path, fake=world, llm=llm, clock=clock) as otomo:
        sent = await otomo.mention("@taro に明日10時に資料送ってってリマインドして")
        await approve(otomo, int(sent["id"]), HANA_ID, GENERAL_CHANNEL_ID)
        (accepted,) = await rows(otomo)
        assert await otomo.reminders.run_due() == 1
        request = request_of(world, accepted.id)

        wrong = await click(otomo, request, f"rcs:{accepted.id}:accept", ADMIN_ID)
        took = await click(otomo, request, f"rcs:{accepted.id}:accept", TARO_ID)
        clock.set(due)
        assert await otomo.reminders.run_due() == 1

        # Two more for taro, a day later: one declined, one answered by stopping all from hana.
        later = due + timedelta(days=1)
        deps = otomo.app.core.deps
        ids = []
        for what in ("会議の準備", "ランチ"):
            view = await deps.reminders.create(
                user_id=HANA_ID,
                user_display_name="Hana",
                guild_id=GUILD_ID,
                channel_id=GENERAL_CHANNEL_ID,
                when=wall(later),
                content=what,
                tz=TOKYO,
                language="ja",
                target=Target(member=Member(TARO_ID, "Taro")),
            )
            ids.append(view.id)
        assert await otomo.reminders.run_due() == 2
        declined, blocked = ids
        await click(otomo, request_of(world, declined), f"rcs:{declined}:decline", TARO_ID)
        await click(otomo, request_of(world, blocked), f"rcs:{blocked}:block", TARO_ID)
        again = await otomo.mention("@taro にもう一回リマインドして")
        await world.wait_for_message(GENERAL_CHANNEL_ID, after=int(again["id"]))
        await otomo.idle()
        refused = last_tool_result(llm)
        listed = await (
            await world.invoke_slash("remind unblock", {}, user_id=TARO_ID)
        ).wait_response()
        unblocked = await (
            await world.invoke_slash("remind unblock", {"member": str(HANA_ID)}, user_id=TARO_ID)
        ).wait_response()
        assert await otomo.app.core.deps.reminder_consent.records.blocked(GUILD_ID, TARO_ID) == []

        clock.set(later)
        assert await otomo.reminders.run_due() == 0
        stored = {row.id: row for row in await rows(otomo)}

    assert request["content"].startswith(f"<@{TARO_ID}> Hana さんから")
    assert [int(u) for u in request["allowed_mentions"]["users"]] == [TARO_ID]
    assert custom_ids(request) == [f"rcs:{accepted.id}:{a}" for a in ("accept", "decline", "block")]
    assert wrong["data"]["flags"] & EPHEMERAL
    assert wrong["data"]["content"] == "このリマインドの依頼はあなた宛てではありません。"
    assert took["type"] == UPDATE_MESSAGE and took["data"]["components"] == []
    assert "✅ 受け取りました" in took["data"]["content"]
    assert refused["is_error"] and "stopped reminders" in refused["error"]
    assert listed["data"]["content"] == f"このサーバーでリマインドを受け取らない相手: <@{HANA_ID}>"
    assert unblocked["data"]["content"].startswith(
        f"<@{HANA_ID}> からのリマインドをまた受け取ります"
    )
    delivered = [
        m for m in world.messages(GENERAL_CHANNEL_ID) if m.get("nonce") == f"r{accepted.id}o1"
    ]
    assert len(delivered) == 1 and delivered[0]["content"].startswith(f"<@{TARO_ID}> ⏰ 資料送って")
    assert [int(u) for u in delivered[0]["allowed_mentions"]["users"]] == [TARO_ID]
    for reminder_id in (declined, blocked):
        assert not any(
            m.get("nonce") == f"r{reminder_id}o1" for m in world.messages(GENERAL_CHANNEL_ID)
        )
        assert (stored[reminder_id].state, stored[reminder_id].consent) == (
            ReminderState.CANCELLED,
            Consent.DECLINED,
        )
    assert stored[accepted.id].state == ReminderState.DELIVERED
    assert len(stored) == 3  # the request after the block was refused before any card


async def test_a_channel_reminder_needs_send_messages_there_and_names_are_per_server_in_english(
    tmp_path: Path, world: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    world.world.client_locale = "en-US"
    due = tomorrow_at_ten(clock)
    to_random = {"when": wall(due), "what": "post the notes", "to_channel": "#random"}
    llm.queue(
        tool_call("create_reminder", to_random),
        text("You may not post in #random."),
        tool_call("create_reminder", to_random),
        text("Done: I'll post it in #random."),
        tool_call("create_reminder", {"when": wall(due), "what": "hi", "for_member": "@taro"}),
        text("There is no taro here."),
        tool_call(
            "create_reminder",
            {"when": wall(due), "what": "bring the slides", "for_member": "@sora"},
        ),
        text("I asked sora."),
    )
    async with running_bot(tmp_path, fake=world, llm=llm, clock=clock) as otomo:
        for user_id in (TARO_ID, HANA_ID):
            sent = await otomo.mention(
                "remind #random tomorrow at 10 to post the notes", user_id=user_id
            )
            await world.wait_for_message(GENERAL_CHANNEL_ID, after=int(sent["id"]))
            if user_id == HANA_ID:
                await approve(otomo, int(sent["id"]), HANA_ID, GENERAL_CHANNEL_ID)
            await otomo.idle()
            if user_id == TARO_ID:
                not_allowed = last_tool_result(llm)
        elsewhere = await otomo.mention(
            "remind @taro tomorrow at 10 to say hi", channel_id=SECOND_GENERAL_CHANNEL_ID
        )
        await world.wait_for_message(SECOND_GENERAL_CHANNEL_ID, after=int(elsewhere["id"]))
        await otomo.idle()
        no_taro_here = last_tool_result(llm)
        for_sora = await otomo.mention(
            "remind @sora tomorrow at 10 to bring the slides", channel_id=SECOND_GENERAL_CHANNEL_ID
        )
        await approve(otomo, int(for_sora["id"]), HANA_ID, SECOND_GENERAL_CHANNEL_ID)
        assert await otomo.reminders.run_due() == 1
        channel_reminder, sora_reminder = await rows(otomo)
        request = request_of(world, sora_reminder.id, SECOND_GENERAL_CHANNEL_ID)
        wrong = await click(otomo, request, f"rcs:{sora_reminder.id}:accept", HANA_ID)
        clock.set(due)
        await otomo.reminders.run_due()
        posted = [
            m
            for m in world.messages(RANDOM_CHANNEL_ID)
            if m.get("nonce") == f"r{channel_reminder.id}o1"
        ]
        expired = [
            m
            for m in world.messages(SECOND_GENERAL_CHANNEL_ID)
            if m.get("nonce") == f"r{sora_reminder.id}x"
        ]

    assert not_allowed["is_error"] and "may not send messages" in not_allowed["error"]
    assert (channel_reminder.channel_id, channel_reminder.user_id) == (RANDOM_CHANNEL_ID, HANA_ID)
    assert len(posted) == 1 and posted[0]["content"] == "⏰ post the notes"
    assert (
        posted[0]["allowed_mentions"].get("users", []) == []
        and posted[0]["allowed_mentions"]["parse"] == []
    )
    assert no_taro_here["is_error"] and "no member '@taro'" in no_taro_here["error"]
    assert request["content"].startswith(f"<@{SORA_ID}> Hana asks to remind you at <t:")
    assert wrong["data"]["content"] == "This reminder request is not for you."
    # Sora never answered: nothing reached her, and Hana was told.
    assert len(expired) == 1
    assert expired[0]["content"].startswith(f"<@{HANA_ID}> <@{SORA_ID}> did not accept")
    assert [int(u) for u in expired[0]["allowed_mentions"]["users"]] == [HANA_ID]
    assert not any(
        m.get("nonce") == f"r{sora_reminder.id}o1"
        for m in world.messages(SECOND_GENERAL_CHANNEL_ID)
    )
