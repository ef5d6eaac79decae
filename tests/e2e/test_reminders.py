"""Reminders end to end: asked for in chat, approved, posted once on time in the channel, with
Discord's failures, restarts, two processes, the Snooze/Done buttons and the slash commands."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from bot.reminders.delivery.engine import LEASE
from bot.reminders.delivery.ledger import DeliveryLedger
from bot.reminders.service import ReminderService
from bot.reminders.table import Reminder, ReminderState
from bot.runtime.clock import ManualClock
from bot.settings import load_settings
from bot.storage import create_database
from bot.storage.migrate import upgrade
from tests.e2e.harness import RunningBot, bot_environment, running_bot
from tests.fakes.discord_server import (
    GENERAL_CHANNEL_ID,
    GUILD_ID,
    HANA_ID,
    RANDOM_CHANNEL_ID,
    TARO_ID,
    FakeDiscord,
    Json,
    RecordedRequest,
)
from tests.fakes.llm_server import ScriptedLLM, text, tool_call

pytestmark = pytest.mark.e2e

TOKYO = ZoneInfo("Asia/Tokyo")
NEW_YORK = ZoneInfo("America/New_York")
EPHEMERAL = 64
UPDATE_MESSAGE = 7
GENERAL_MESSAGES = rf"/channels/{GENERAL_CHANNEL_ID}/messages"
REMINDER_NONCE = re.compile(r"r\d+o\d+")


@pytest.fixture
def clock() -> ManualClock:
    """20:00 in Tokyo, weeks ahead of the real clock.

    APScheduler runs on real time while the bot runs on this clock; being ahead, the wake-up
    armed at a reminder's due time never fires by itself, so each test moves the clock and
    delivers with `run_due()` instead of waiting.
    """
    day = datetime.now(TOKYO).date() + timedelta(days=60)
    return ManualClock(datetime.combine(day, time(20, 0), tzinfo=TOKYO))


def local(
    clock: ManualClock, days: int, hour: int, minute: int = 0, tz: ZoneInfo = TOKYO
) -> datetime:
    """The instant of hour:minute local time, days after the clock's local date."""
    day = clock.now().astimezone(tz).date() + timedelta(days=days)
    return datetime.combine(day, time(hour, minute), tzinfo=tz).astimezone(UTC)


def wall(instant: datetime, tz: ZoneInfo = TOKYO) -> str:
    """What the model writes for a time: naive local ISO."""
    return instant.astimezone(tz).strftime("%Y-%m-%dT%H:%M")


def custom_ids(message: Json) -> list[str]:
    """Every component custom_id of a message, in order."""
    found = []
    for row in message.get("components") or []:
        for component in row.get("components") or []:
            if component.get("custom_id"):
                found.append(component["custom_id"])
    return found


def reminder_posts(fake: FakeDiscord, nonce: str) -> list[RecordedRequest]:
    """Every message POST the bot made with this nonce (whatever Discord answered)."""
    return [
        r
        for r in fake.requests
        if r.method == "POST"
        and r.path.endswith("/messages")
        and isinstance(r.json, dict)
        and r.json.get("nonce") == nonce
    ]


def posted_reminders(fake: FakeDiscord, channel_id: int = GENERAL_CHANNEL_ID) -> list[Json]:
    """Reminder messages in the channel now (their nonce is `r<id>o<occurrence>`)."""
    return [m for m in fake.messages(channel_id) if REMINDER_NONCE.fullmatch(str(m.get("nonce")))]


async def reminder_ids(otomo: RunningBot) -> list[int]:
    """Every reminder id in the database."""
    async with otomo.app.core.database.sessions() as session:
        return list(await session.scalars(select(Reminder.id).order_by(Reminder.id)))


async def row_of(otomo: RunningBot, reminder_id: int) -> Reminder:
    """The reminder's row as stored now."""
    async with otomo.app.core.database.sessions() as session:
        row = await session.get(Reminder, reminder_id)
    assert row is not None, f"no reminder #{reminder_id}"
    return row


async def remind(
    otomo: RunningBot,
    due: datetime,
    what: str = "歯医者",
    *,
    user_id: int = HANA_ID,
    channel_id: int = GENERAL_CHANNEL_ID,
) -> int:
    """Store a reminder the way the create_reminder tool does (already approved)."""
    view = await otomo.app.core.deps.reminders.create(
        user_id=user_id,
        user_display_name="someone",
        guild_id=GUILD_ID,
        channel_id=channel_id,
        when=wall(due),
        content=what,
        tz=TOKYO,
    )
    return view.id


async def remind_while_down(
    tmp_path: Path,
    fake: FakeDiscord,
    llm: ScriptedLLM,
    clock: ManualClock,
    dues: list[tuple[datetime, int]],
) -> list[int]:
    """Reminders written into the bot's database before it starts: (due, channel) each."""
    settings = load_settings(environ=bot_environment(fake, llm, tmp_path), env_file=None)
    database = create_database(settings.database_url)
    ids = []
    try:
        await upgrade(database)
        service = ReminderService(database.sessions, clock, settings)
        for n, (due, channel_id) in enumerate(dues, 1):
            view = await service.create(
                user_id=HANA_ID,
                user_display_name="Hana",
                guild_id=GUILD_ID,
                channel_id=channel_id,
                when=wall(due),
                content=f"用事 {n}",
                tz=TOKYO,
            )
            ids.append(view.id)
        return ids
    finally:
        await database.dispose()


async def approve_card(otomo: RunningBot, after: int) -> Json:
    """Wait for the approval card after message `after`, click Approve as Hana, let it finish."""
    card = await otomo.fake.wait_for_message(
        GENERAL_CHANNEL_ID,
        lambda m: any(c.startswith("apv:") for c in custom_ids(m)),
        after=after,
    )
    approve = next(c for c in custom_ids(card) if c.endswith(":approve"))
    click = await otomo.fake.click_button(int(card["id"]), approve, HANA_ID)
    await click.wait_response()
    await otomo.idle()
    return card


def tool_result(request_messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The JSON of the last tool message the model was sent."""
    tool_messages = [m for m in request_messages if m["role"] == "tool"]
    assert tool_messages, "the model was sent no tool result"
    result: dict[str, Any] = json.loads(tool_messages[-1]["content"])
    return result


# -- asked for in chat, approved, posted -----------------------------------------------------


async def test_a_reminder_asked_in_chat_is_approved_then_posted_in_the_channel_pinging_only_them(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    due = local(clock, 1, 9)
    llm.queue(
        tool_call("create_reminder", {"when": wall(due), "what": "@everyone 歯医者の予約"}),
        text("明日9時にお知らせします。"),
    )
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        sent = await otomo.mention("明日の9時に歯医者ってリマインドして")
        card = await approve_card(otomo, int(sent["id"]))
        (reminder_id,) = await reminder_ids(otomo)

        assert card["embeds"][0]["title"] == "🔧 リマインドを登録"
        assert "承認待ち" in card["embeds"][0]["description"]
        assert tool_result(llm.requests[1].messages)["output"]["created"] is True
        row = await row_of(otomo, reminder_id)
        assert (row.state, row.user_id, row.channel_id, row.due_at) == (
            ReminderState.PENDING,
            HANA_ID,
            GENERAL_CHANNEL_ID,
            due,
        )
        assert row.origin_message_id == int(sent["id"])
        assert otomo.reminders.armed_at == due  # creating it woke the delivery engine

        clock.set(due - timedelta(seconds=1))
        assert await otomo.reminders.run_due() == 0
        clock.set(due)
        assert await otomo.reminders.run_due() == 1

        (posted,) = posted_reminders(fake)
        assert posted["content"].startswith(f"<@{HANA_ID}> ⏰")
        assert posted["allowed_mentions"]["parse"] == []
        assert [int(u) for u in posted["allowed_mentions"]["users"]] == [HANA_ID]
        assert [int(u["id"]) for u in posted["mentions"]] == [HANA_ID]
        assert posted["mention_everyone"] is False and posted["mention_roles"] == []
        assert posted["nonce"] == f"r{reminder_id}o1"
        embed = posted["embeds"][0]
        assert embed["description"] == "@everyone 歯医者の予約"
        link = f"https://discord.com/channels/{GUILD_ID}/{GENERAL_CHANNEL_ID}/{sent['id']}"
        assert any(link in field["value"] for field in embed["fields"])
        assert custom_ids(posted) == [
            f"rem:{reminder_id}:{a}" for a in ("s10", "s60", "morning", "done")
        ]
        row = await row_of(otomo, reminder_id)
        assert row.state == ReminderState.DELIVERED
        assert row.delivered_message_id == int(posted["id"])


@pytest.mark.parametrize(
    ("when", "complaint"),
    [
        pytest.param(lambda c: wall(local(c, -1, 9)), "is in the past", id="past"),
        pytest.param(lambda c: wall(local(c, 400, 9)), "days ahead", id="too-far"),
        pytest.param(lambda c: "来週のどこか", "is not an ISO 8601", id="unparsable"),
    ],
)
async def test_an_unusable_time_reaches_the_model_as_an_error_result(
    tmp_path: Path,
    fake: FakeDiscord,
    llm: ScriptedLLM,
    clock: ManualClock,
    when: Callable[[ManualClock], str],
    complaint: str,
) -> None:
    llm.queue(
        tool_call("create_reminder", {"when": when(clock), "what": "歯医者"}),
        text("いつにしますか？"),
    )
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        _, replies = await otomo.ask("歯医者ってリマインドして")

        # Checked before anyone is asked: no card, the model hears why at once.
        assert [m for m in replies if m.get("embeds")] == []
        result = tool_result(llm.requests[1].messages)
        assert result["is_error"] is True
        assert complaint in result["error"]
        assert await reminder_ids(otomo) == []
        assert otomo.reminders.armed_at is None


# -- Discord failing -------------------------------------------------------------------------


async def test_a_429_that_outlasts_discord_pys_own_retries_is_retried_after_retry_after(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        due = local(clock, 0, 21)
        reminder_id = await remind(otomo, due)
        # discord.py waits out a 429 itself and tries 5 times; the sixth answer reaches us.
        fake.inject("POST", GENERAL_MESSAGES, status=429, retry_after=0.01, times=5)
        clock.set(due)
        await otomo.reminders.run_due()

        row = await row_of(otomo, reminder_id)
        assert fake.rate_limit_hits["injected"] == 5
        assert posted_reminders(fake) == []
        assert (row.state, row.attempts, row.retries) == (ReminderState.PENDING, 0, 1)
        assert row.last_error is not None and row.last_error.startswith("429")
        assert row.next_attempt_at == due + timedelta(seconds=1)  # Discord's Retry-After

        clock.set(row.next_attempt_at)
        assert await otomo.reminders.run_due() == 1
        assert len(posted_reminders(fake)) == 1
        assert (await row_of(otomo, reminder_id)).state == ReminderState.DELIVERED


async def test_server_errors_are_retried_and_never_post_twice(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        due = local(clock, 0, 21)
        first = await remind(otomo, due, "一つ目")
        # A 500 is retried by discord.py itself a second later, with the same nonce.
        fake.inject("POST", GENERAL_MESSAGES, status=500, times=1)
        clock.set(due)
        await otomo.reminders.run_due()
        assert [r.status for r in reminder_posts(fake, f"r{first}o1")] == [500, 200]

        # A 503 is not retried by discord.py: the engine backs off and tries again.
        second = await remind(otomo, due + timedelta(minutes=5), "二つ目")
        fake.inject("POST", GENERAL_MESSAGES, status=503, times=1)
        clock.set(due + timedelta(minutes=5))
        await otomo.reminders.run_due()
        row = await row_of(otomo, second)
        assert (row.state, row.attempts, row.retries) == (ReminderState.PENDING, 0, 1)
        assert row.next_attempt_at == clock.now() + timedelta(seconds=2)

        clock.set(row.next_attempt_at)
        await otomo.reminders.run_due()
        assert [r.status for r in reminder_posts(fake, f"r{second}o1")] == [503, 200]
        assert [m["embeds"][0]["description"] for m in posted_reminders(fake)] == [
            "一つ目",
            "二つ目",
        ]


async def test_forbidden_five_times_fails_the_reminder_and_tells_the_owner_by_dm(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        due = local(clock, 0, 21)
        reminder_id = await remind(otomo, due, "ゴミ出し")
        fake.inject("POST", GENERAL_MESSAGES, status=403, times=None)
        clock.set(due)
        for attempt in range(1, 6):
            await otomo.reminders.run_due()
            row = await row_of(otomo, reminder_id)
            assert row.attempts == attempt
            assert row.last_error is not None and row.last_error.startswith("403")
            if attempt < 5:
                assert row.state == ReminderState.PENDING
                assert fake.messages(fake.dm_channel_id(HANA_ID)) == []
                clock.set(row.next_attempt_at)

        assert row.state == ReminderState.FAILED
        (dm,) = fake.messages(fake.dm_channel_id(HANA_ID))
        assert "ゴミ出し" in dm["content"] and f"<#{GENERAL_CHANNEL_ID}>" in dm["content"]
        assert "投稿できませんでした" in dm["content"]
        assert dm["mentions"] == [] and dm["mention_everyone"] is False
        assert len(reminder_posts(fake, f"r{reminder_id}o1")) == 5
        clock.set(clock.now() + timedelta(days=1))
        assert await otomo.reminders.run_due() == 0


async def test_a_missing_channel_counts_as_an_attempt_and_the_next_attempt_can_succeed(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        due = local(clock, 0, 21)
        reminder_id = await remind(otomo, due)
        fake.inject("POST", GENERAL_MESSAGES, status=404, code=10003, times=1)
        clock.set(due)
        await otomo.reminders.run_due()
        row = await row_of(otomo, reminder_id)
        assert (row.state, row.attempts, row.retries) == (ReminderState.PENDING, 1, 0)
        assert row.last_error == "404 Unknown Channel (10003)"
        assert row.next_attempt_at == due + timedelta(seconds=30)

        clock.set(row.next_attempt_at)
        await otomo.reminders.run_due()
        assert len(posted_reminders(fake)) == 1
        assert (await row_of(otomo, reminder_id)).state == ReminderState.DELIVERED


async def test_one_channels_burst_does_not_hold_up_another_channel(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    fake.rate_limit_channel_messages(per=2, seconds=1)
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        due = local(clock, 0, 21)
        for n in range(4):
            await remind(otomo, due, f"general {n}")
        await remind(otomo, due, "random", channel_id=RANDOM_CHANNEL_ID)
        clock.set(due)
        assert await otomo.reminders.run_due() == 5

        general = posted_reminders(fake, GENERAL_CHANNEL_ID)
        (elsewhere,) = posted_reminders(fake, RANDOM_CHANNEL_ID)
        # Snowflakes are time-ordered: #random went out before #general's second window.
        assert int(elsewhere["id"]) < int(general[2]["id"])
        assert fake.rate_limit_hits["channel"] == 0  # discord.py waited instead of colliding


# -- restarts and two processes --------------------------------------------------------------


async def test_a_crash_between_posting_and_recording_does_not_post_twice_after_restart(
    tmp_path: Path,
    fake: FakeDiscord,
    llm: ScriptedLLM,
    clock: ManualClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    due = local(clock, 0, 21)

    async def killed(*_: object) -> bool:
        raise RuntimeError("the process was killed before recording the delivery")

    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        reminder_id = await remind(otomo, due)
        monkeypatch.setattr(DeliveryLedger, "mark_delivered_many", killed)
        clock.set(due)
        await otomo.reminders.run_due()
        (first,) = posted_reminders(fake)
        row = await row_of(otomo, reminder_id)
        assert row.state == ReminderState.PENDING and row.claimed_by is not None
    monkeypatch.undo()

    clock.set(due + LEASE)  # the dead process's claim runs out
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        await otomo.reminders.drain()
        row = await row_of(otomo, reminder_id)

        assert len(reminder_posts(fake, f"r{reminder_id}o1")) == 2
        assert posted_reminders(fake) == [first]  # Discord answered the resend with the first
        assert row.state == ReminderState.DELIVERED
        assert row.delivered_message_id == int(first["id"])


async def test_reminders_that_fell_due_while_down_are_posted_at_start_marked_late(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    due = local(clock, 0, 21)
    (reminder_id,) = await remind_while_down(
        tmp_path, fake, llm, clock, [(due, GENERAL_CHANNEL_ID)]
    )
    clock.set(due + timedelta(hours=2))
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        await otomo.reminders.drain()

        (posted,) = posted_reminders(fake)
        when = posted["embeds"][0]["fields"][0]["value"]
        assert "2時間遅れ" in when
        assert (await row_of(otomo, reminder_id)).state == ReminderState.DELIVERED


async def test_two_bots_on_one_database_post_each_reminder_once(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    due = local(clock, 0, 21)
    channels = [GENERAL_CHANNEL_ID, RANDOM_CHANNEL_ID]
    ids = await remind_while_down(
        tmp_path, fake, llm, clock, [(due, channels[n % 2]) for n in range(12)]
    )
    async with (
        running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as first,
        running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as second,
    ):
        assert first.reminders.worker_id != second.reminders.worker_id
        clock.set(due)
        claimed = await asyncio.gather(first.reminders.run_due(), second.reminders.run_due())

        assert sum(claimed) == 12
        for reminder_id in ids:
            assert len(reminder_posts(fake, f"r{reminder_id}o1")) == 1
            assert (await row_of(first, reminder_id)).state == ReminderState.DELIVERED
        assert len(posted_reminders(fake, GENERAL_CHANNEL_ID)) == 6
        assert len(posted_reminders(fake, RANDOM_CHANNEL_ID)) == 6


# -- the buttons under a delivered reminder --------------------------------------------------


async def delivered(
    otomo: RunningBot, clock: ManualClock, due: datetime, what: str = "歯医者"
) -> tuple[int, Json]:
    """A reminder posted in #general at due: its id and message."""
    reminder_id = await remind(otomo, due, what)
    clock.set(due)
    await otomo.reminders.run_due()
    message = next(m for m in posted_reminders(otomo.fake) if m.get("nonce") == f"r{reminder_id}o1")
    return reminder_id, message


async def test_the_requester_snoozes_for_ten_minutes_and_is_reminded_again(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        reminder_id, message = await delivered(otomo, clock, local(clock, 0, 21))
        click = await fake.click_button(int(message["id"]), f"rem:{reminder_id}:s10", HANA_ID)
        response = await click.wait_response()
        answer = await click.wait_followup()

        assert response["type"] == UPDATE_MESSAGE
        card = fake.message(int(message["id"]))
        assert card is not None and card["components"] == []
        assert "にもう一度" in card["embeds"][0]["footer"]["text"]
        assert answer["flags"] & EPHEMERAL
        assert "もう一度お知らせします" in answer["content"]
        row = await row_of(otomo, reminder_id)
        assert (row.state, row.occurrence) == (ReminderState.PENDING, 2)
        assert row.due_at == clock.now() + timedelta(minutes=10)

        clock.set(row.due_at)
        await otomo.reminders.run_due()
        assert [m["nonce"] for m in posted_reminders(fake)] == [
            f"r{reminder_id}o1",
            f"r{reminder_id}o2",
        ]


async def test_tomorrow_morning_and_done_work_for_the_requester_only(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        reminder_id, message = await delivered(otomo, clock, local(clock, 0, 21))

        refused = await fake.click_button(int(message["id"]), f"rem:{reminder_id}:done", TARO_ID)
        refusal = await refused.wait_response()
        assert refusal["data"]["flags"] & EPHEMERAL
        assert "頼んだ人と、リマインドされる人だけ" in refusal["data"]["content"]
        assert len(custom_ids(fake.message(int(message["id"])) or {})) == 4
        assert (await row_of(otomo, reminder_id)).state == ReminderState.DELIVERED

        morning = await fake.click_button(int(message["id"]), f"rem:{reminder_id}:morning", HANA_ID)
        await morning.wait_followup()
        assert (await row_of(otomo, reminder_id)).due_at == local(clock, 1, 8)

        other_id, other = await delivered(otomo, clock, local(clock, 0, 22), "洗濯物")
        done = await fake.click_button(int(other["id"]), f"rem:{other_id}:done", HANA_ID)
        answer = await done.wait_followup()
        assert answer["flags"] & EPHEMERAL
        assert "完了" in answer["content"]
        card = fake.message(int(other["id"]))
        assert card is not None and card["components"] == []
        assert "✅ 完了" in card["embeds"][0]["footer"]["text"]
        assert (await row_of(otomo, other_id)).state == ReminderState.DELIVERED


# -- slash commands --------------------------------------------------------------------------


async def test_remind_list_shows_my_pending_reminders_and_its_menu_cancels_one(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    async with running_bot(
        tmp_path, fake=fake, llm=llm, clock=clock, DEV_GUILD_ID=GUILD_ID
    ) as otomo:
        dentist = await remind(otomo, local(clock, 1, 9), "歯医者")
        laundry = await remind(otomo, local(clock, 1, 18), "洗濯物")
        theirs = await remind(otomo, local(clock, 1, 10), "太郎の用事", user_id=TARO_ID)

        listed = await fake.invoke_slash(
            "remind list", user_id=HANA_ID, channel_id=GENERAL_CHANNEL_ID
        )
        response = (await listed.wait_response())["data"]
        assert response["flags"] & EPHEMERAL
        listing = response["embeds"][0]["description"]
        assert "歯医者" in listing and "洗濯物" in listing and "太郎の用事" not in listing
        assert listing.index("歯医者") < listing.index("洗濯物")  # soonest first
        (menu,) = [c for row in response["components"] for c in row["components"]]
        assert [o["value"] for o in menu["options"]] == [str(dentist), str(laundry)]

        assert listed.original_message_id is not None
        chosen = await fake.choose_select(
            listed.original_message_id, menu["custom_id"], [str(dentist)], HANA_ID
        )
        update = await chosen.wait_response()

        assert update["type"] == UPDATE_MESSAGE
        assert "取り消しました" in update["data"]["content"]
        assert update["data"]["components"] == []
        assert (await row_of(otomo, dentist)).state == ReminderState.CANCELLED
        assert (await row_of(otomo, laundry)).state == ReminderState.PENDING
        assert (await row_of(otomo, theirs)).state == ReminderState.PENDING


async def test_remind_cancel_offers_my_reminders_and_refuses_someone_elses(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    async with running_bot(
        tmp_path, fake=fake, llm=llm, clock=clock, DEV_GUILD_ID=GUILD_ID
    ) as otomo:
        mine = await remind(otomo, local(clock, 1, 9), "歯医者")

        offered = await fake.autocomplete(
            "remind cancel", {"reminder_id": "歯"}, "reminder_id", user_id=HANA_ID
        )
        choices = (await offered.wait_response())["data"]["choices"]
        assert [c["value"] for c in choices] == [mine]

        refused = await fake.invoke_slash("remind cancel", {"reminder_id": mine}, user_id=TARO_ID)
        refusal = (await refused.wait_response())["data"]
        assert refusal["flags"] & EPHEMERAL
        assert "別の人のリマインド" in refusal["content"]
        assert "tell the user" not in refusal["content"]  # the model's wording stays with it
        assert (await row_of(otomo, mine)).state == ReminderState.PENDING

        cancelled = await fake.invoke_slash("remind cancel", {"reminder_id": mine}, user_id=HANA_ID)
        assert "取り消しました" in (await cancelled.wait_response())["data"]["content"]
        assert (await row_of(otomo, mine)).state == ReminderState.CANCELLED


async def test_timezone_set_with_autocomplete_changes_how_my_times_are_read(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    due = local(clock, 1, 9, tz=NEW_YORK)
    llm.queue(
        tool_call("create_reminder", {"when": wall(due, NEW_YORK), "what": "会議"}),
        text("設定しました"),
    )
    async with running_bot(
        tmp_path, fake=fake, llm=llm, clock=clock, DEV_GUILD_ID=GUILD_ID
    ) as otomo:
        shown = await fake.invoke_slash("timezone show", user_id=HANA_ID)
        assert "Asia/Tokyo" in (await shown.wait_response())["data"]["content"]

        offered = await fake.autocomplete(
            "timezone set", {"name": "new york"}, "name", user_id=HANA_ID
        )
        choices = (await offered.wait_response())["data"]["choices"]
        assert {"name": "America/New_York", "value": "America/New_York"} in choices

        unknown = await fake.invoke_slash("timezone set", {"name": "Mars/Olympus"}, user_id=HANA_ID)
        assert "見つかりません" in (await unknown.wait_response())["data"]["content"]
        chosen = await fake.invoke_slash(
            "timezone set", {"name": "America/New_York"}, user_id=HANA_ID
        )
        answer = (await chosen.wait_response())["data"]
        assert answer["flags"] & EPHEMERAL and "America/New_York" in answer["content"]
        shown = await fake.invoke_slash("timezone show", user_id=HANA_ID)
        assert "America/New_York" in (await shown.wait_response())["data"]["content"]

        sent = await otomo.mention("明日の9時に会議ってリマインドして")
        await approve_card(otomo, int(sent["id"]))
        (reminder_id,) = await reminder_ids(otomo)
        stored = await row_of(otomo, reminder_id)
        assert "America/New_York" in llm.requests[0].system
        assert stored.due_at == due  # 09:00 in New York, stored as UTC
        assert stored.timezone == "America/New_York"


async def test_reminders_whose_claim_ran_out_behind_a_slow_channel_are_still_posted_once(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    fake.rate_limit_channel_messages(per=1, seconds=0.5)
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        due = local(clock, 0, 21)
        queued = [await remind(otomo, due, f"general {n}") for n in range(3)]
        clock.set(due)
        first_wake = asyncio.create_task(otomo.reminders.run_due())
        await fake.wait_for_message(GENERAL_CHANNEL_ID, lambda m: m.get("nonce") is not None)
        # While #general drips out one message a second, the claims on its queue run out and
        # the next wake-up (for a reminder elsewhere) claims them again.
        clock.set(due + LEASE + timedelta(seconds=1))
        await remind(
            otomo, clock.now() + timedelta(minutes=1), "random", channel_id=RANDOM_CHANNEL_ID
        )
        clock.set(clock.now() + timedelta(minutes=1))
        await otomo.reminders.run_due()
        await first_wake
        await otomo.reminders.drain()

        nonces = [m["nonce"] for m in posted_reminders(fake)]
        assert nonces == [f"r{reminder_id}o1" for reminder_id in queued]
        for reminder_id in queued:
            assert (await row_of(otomo, reminder_id)).state == ReminderState.DELIVERED


async def test_a_request_the_router_sent_to_chat_can_still_set_a_reminder_after_approval(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    # Small talk and a feeling outweigh 起こして: chat answers, with the reminder tools beside its
    # own, and the run resumed after the click offers them again.
    due = local(clock, 1, 6)
    llm.queue(
        tool_call("create_reminder", {"when": wall(due), "what": "起きる"}),
        text("明日6時に起こすね！"),
    )
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        sent = await otomo.mention("眠いー 明日6時に起こしてー")
        await approve_card(otomo, int(sent["id"]))
        (reminder_id,) = await reminder_ids(otomo)
        row = await row_of(otomo, reminder_id)

    asked, resumed = llm.requests
    assert {"recent_topics", "create_reminder"} <= set(asked.tool_names)
    assert "create_reminder" in resumed.tool_names
    assert tool_result(resumed.messages)["output"]["created"] is True
    assert (row.state, row.due_at) == (ReminderState.PENDING, due)
