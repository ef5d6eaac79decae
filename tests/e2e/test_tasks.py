"""Scheduled tasks end to end: asked for in Japanese and English, approved, run at the due minute
with only their tools, posted once in the right place and language; a side-effect call inside a
run waits for its owner's click."""

from __future__ import annotations

import re
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from bot.reminders.table import Reminder
from bot.runtime.clock import ManualClock
from bot.schedule.repeat import RepeatRule
from bot.tasks.discord_part import TaskJobs
from bot.tasks.service import TaskSpec
from bot.tasks.table import RunStatus, Task, TaskRun
from tests.e2e.harness import RunningBot, custom_ids, running_bot
from tests.fakes.discord_server import (
    ADMIN_ID,
    GENERAL_CHANNEL_ID,
    GUILD_ID,
    HANA_ID,
    MEMBER_ROLE_ID,
    FakeDiscord,
    Json,
)
from tests.fakes.llm_server import ScriptedLLM, text, tool_call

pytestmark = pytest.mark.e2e

TOKYO = ZoneInfo("Asia/Tokyo")
TASK_NONCE = re.compile(r"t\d+d\d+")


@pytest.fixture
def clock() -> ManualClock:
    """20:00 in Tokyo, weeks ahead of the real clock (the scheduler never fires by itself)."""
    day = datetime.now(TOKYO).date() + timedelta(days=60)
    return ManualClock(datetime.combine(day, time(20, 0), tzinfo=TOKYO))


def local(clock: ManualClock, days: int, hour: int, minute: int = 0) -> datetime:
    """The instant of hour:minute Tokyo time, days after the clock's local date."""
    day = clock.now().astimezone(TOKYO).date() + timedelta(days=days)
    return datetime.combine(day, time(hour, minute), tzinfo=TOKYO).astimezone(UTC)


def wall(instant: datetime) -> str:
    """What the model writes for a time: naive local ISO."""
    return instant.astimezone(TOKYO).strftime("%Y-%m-%dT%H:%M")


def jobs(otomo: RunningBot) -> TaskJobs:
    """The tasks' runner of this process."""
    cog = otomo.app.bot.get_cog("TaskJobs")
    assert isinstance(cog, TaskJobs)
    return cog


async def approve(otomo: RunningBot, channel_id: int, after: int, user_id: int) -> Json:
    """Click Approve on the card after message `after` and let the run finish."""
    card = await otomo.fake.wait_for_message(
        channel_id, lambda m: any(c.startswith("apv:") for c in custom_ids(m)), after=after
    )
    button = next(c for c in custom_ids(card) if c.endswith(":approve"))
    click = await otomo.fake.click_button(int(card["id"]), button, user_id)
    await click.wait_response()
    await otomo.idle()
    return card


def task_posts(fake: FakeDiscord, channel_id: int) -> list[Json]:
    """The messages in the channel that a task's run posted (their nonce is `t<id>d<minute>`)."""
    return [m for m in fake.messages(channel_id) if TASK_NONCE.fullmatch(str(m.get("nonce")))]


async def runs_of(otomo: RunningBot) -> list[TaskRun]:
    """Every run recorded, oldest first."""
    async with otomo.app.core.database.sessions() as session:
        return list(await session.scalars(select(TaskRun).order_by(TaskRun.id)))


def tool_names(request: Any) -> list[str]:
    """The tools a model request offered."""
    return sorted(request.tool_names)


async def test_a_japanese_task_is_approved_then_runs_at_seven_with_its_tools_and_posts_once(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    seven = local(clock, 1, 7)
    llm.queue(
        tool_call(
            "create_task",
            {
                "prompt": "今日の天気とイベントをまとめて",
                "first_run": wall(seven),
                "repeat": {"kind": "daily"},
                "destination": f"<#{GENERAL_CHANNEL_ID}>",
                "tools": ["get_forecast", "search_knowledge"],
            },
        ),
        text("毎朝7時に投稿します。"),
    )
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        sent = await otomo.mention(
            "毎朝7時に今日の天気とイベントをまとめて #general に投稿して", user_id=ADMIN_ID
        )
        card = await approve(otomo, GENERAL_CHANNEL_ID, int(sent["id"]), ADMIN_ID)
        assert "create_task" in tool_names(llm.requests[0])
        embed = card["embeds"][0]
        assert embed["title"] == "🔧 タスクを登録"
        shown = str(embed)
        assert "今日の天気とイベントをまとめて" in shown
        # The next three runs, as Discord timestamps.
        for day in (1, 2, 3):
            assert f"<t:{int(local(clock, day, 7).timestamp())}:f>" in shown
        assert f"<#{GENERAL_CHANNEL_ID}>" in shown and "`get_forecast`" in shown

        llm.queue(
            tool_call("get_forecast", {"place": "東京"}),
            tool_call("search_knowledge", {"query": "今日のイベント"}),
            text("おはようございます。今日は晴れ、イベントはありません。"),
        )
        asked = len(llm.requests)
        clock.set(seven - timedelta(seconds=1))
        assert await jobs(otomo).runner.run_due() == 0
        clock.set(seven)
        assert await jobs(otomo).runner.run_due() == 1
        assert await jobs(otomo).runner.run_due() == 0

        run_requests = llm.requests[asked:]
        assert len(run_requests) == 3
        assert tool_names(run_requests[0]) == ["get_forecast", "search_knowledge"]
        called = [m for m in run_requests[-1].messages if m["role"] == "tool"]
        assert len(called) == 2
        (post,) = task_posts(fake, GENERAL_CHANNEL_ID)
        assert post["content"] == "おはようございます。今日は晴れ、イベントはありません。"
        assert post["allowed_mentions"]["parse"] == []
        assert post["mention_everyone"] is False
        (run,) = await runs_of(otomo)
        assert (run.status, run.due_at) == (RunStatus.ON_TIME, seven)
        usage = await fake.invoke_slash("otomo usage", user_id=ADMIN_ID)
        await usage.wait_response()
        assert "task 3" in (await usage.wait_followup())["content"]
        figures = otomo.app.core.metrics.exposition().decode()
        assert 'otomo_task_runs_total{outcome="on_time"} 1.0' in figures
        assert "otomo_task_lateness_seconds_bucket" in figures


async def test_an_english_task_in_dms_posts_in_english_and_a_member_may_not_post_to_a_channel(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    friday = local(clock, 1, 18)
    llm.queue(
        tool_call(
            "create_task",
            {
                "prompt": "summarise this week's notes",
                "first_run": wall(friday),
                "repeat": {"kind": "weekly"},
                "destination": "here",
                "tools": ["search_notes"],
            },
        ),
        text("A member cannot post to a channel on a schedule."),
    )
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        # In a server channel, a member without Manage Server is refused before any card.
        await otomo.ask("every Friday at 18:00 summarise this week's notes here", user_id=HANA_ID)
        refused = [m for m in llm.requests[1].messages if m["role"] == "tool"][-1]["content"]
        assert "Manage Server" in refused
        async with otomo.app.core.database.sessions() as session:
            assert list(await session.scalars(select(Task))) == []

        # In their DMs anyone may: the task posts there, in English.
        llm.queue(
            tool_call(
                "create_task",
                {
                    "prompt": "summarise this week's notes",
                    "first_run": wall(friday),
                    "repeat": {"kind": "weekly"},
                    "tools": ["search_notes"],
                },
            ),
            text("Scheduled."),
        )
        dm = fake.dm_channel_id(HANA_ID)
        sent = await fake.send_dm_from_user(
            HANA_ID, "every Friday at 18:00 summarise this week's notes here"
        )
        await approve(otomo, dm, int(sent["id"]), HANA_ID)
        llm.queue(text("This week: two notes, both about the event."))
        clock.set(friday + timedelta(minutes=10))
        assert await jobs(otomo).runner.run_due() == 1
        (post,) = task_posts(fake, dm)
        assert post["content"].startswith("This week: two notes, both about the event.\n")
        assert "-# ⏰ Ran 10 min late (due <t:" in post["content"]


async def test_a_side_effect_call_inside_a_run_waits_for_the_owners_click(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    seven = local(clock, 1, 7)
    llm.queue(
        tool_call(
            "create_task",
            {
                "prompt": "今日の予定をリマインドに登録して",
                "first_run": wall(seven),
                "repeat": {"kind": "daily"},
                "tools": ["create_reminder"],
            },
        ),
        text("登録しました。"),
    )
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        sent = await otomo.mention(
            "毎朝7時に今日の予定をまとめてリマインドに登録して", user_id=ADMIN_ID
        )
        await approve(otomo, GENERAL_CHANNEL_ID, int(sent["id"]), ADMIN_ID)
        before = fake.messages(GENERAL_CHANNEL_ID)[-1]
        llm.queue(
            tool_call(
                "create_reminder", {"when": wall(seven + timedelta(hours=2)), "what": "会議"}
            ),
            text("9時の会議をリマインドに登録しました。"),
        )
        clock.set(seven)
        assert await jobs(otomo).runner.run_due() == 1
        card = await fake.wait_for_message(
            GENERAL_CHANNEL_ID,
            lambda m: any(c.startswith("apv:") for c in custom_ids(m)),
            after=int(before["id"]),
        )
        assert f"<@{ADMIN_ID}>" in str(card)
        async with otomo.app.core.database.sessions() as session:
            assert list(await session.scalars(select(Reminder))) == []
        (run,) = await runs_of(otomo)
        assert run.status == RunStatus.WAITING
        # Another member's click is refused; the owner's runs the call.
        button = next(c for c in custom_ids(card) if c.endswith(":approve"))
        refused = await fake.click_button(int(card["id"]), button, HANA_ID)
        await refused.wait_response()
        async with otomo.app.core.database.sessions() as session:
            assert list(await session.scalars(select(Reminder))) == []
        click = await fake.click_button(int(card["id"]), button, ADMIN_ID)
        await click.wait_response()
        await otomo.idle()
        async with otomo.app.core.database.sessions() as session:
            (reminder,) = list(await session.scalars(select(Reminder)))
        assert reminder.user_id == ADMIN_ID


async def test_an_unattended_run_asks_its_owner_even_for_a_tool_the_owner_always_allows(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    seven = local(clock, 1, 7)
    llm.queue(
        tool_call(
            "create_task",
            {
                "prompt": "今日の予定をリマインドに登録して",
                "first_run": wall(seven),
                "repeat": {"kind": "daily"},
                "tools": ["create_reminder"],
            },
        ),
        text("登録しました。"),
    )
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        sent = await otomo.mention(
            "毎朝7時に今日の予定をまとめてリマインドに登録して", user_id=ADMIN_ID
        )
        await approve(otomo, GENERAL_CHANNEL_ID, int(sent["id"]), ADMIN_ID)
        await otomo.app.core.approvals.grant(ADMIN_ID, "create_reminder", guild_id=GUILD_ID)
        before = fake.messages(GENERAL_CHANNEL_ID)[-1]
        llm.queue(
            tool_call(
                "create_reminder", {"when": wall(seven + timedelta(hours=2)), "what": "会議"}
            ),
            text("9時の会議をリマインドに登録しました。"),
        )
        clock.set(seven)
        assert await jobs(otomo).runner.run_due() == 1
        card = await fake.wait_for_message(
            GENERAL_CHANNEL_ID,
            lambda m: any(c.startswith("apv:") for c in custom_ids(m)),
            after=int(before["id"]),
        )
        assert f"<@{ADMIN_ID}>" in str(card)
        async with otomo.app.core.database.sessions() as session:
            assert list(await session.scalars(select(Reminder))) == []
        (run,) = await runs_of(otomo)
        assert run.status == RunStatus.WAITING


async def test_a_task_creator_role_may_schedule_channel_posts_and_a_server_may_switch_tasks_off(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    call = tool_call(
        "create_task",
        {
            "prompt": "今日の天気をまとめて",
            "first_run": wall(local(clock, 1, 7)),
            "repeat": {"kind": "daily"},
            "tools": ["get_forecast"],
        },
    )
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        servers = otomo.app.core.servers
        await servers.change(GUILD_ID, {"task_creator_roles": frozenset({MEMBER_ROLE_ID})}, None)
        llm.queue(call, text("登録します。"))
        sent = await otomo.mention("毎朝7時に今日の天気をまとめてここに投稿して", user_id=HANA_ID)
        card = await approve(otomo, GENERAL_CHANNEL_ID, int(sent["id"]), HANA_ID)
        assert card["embeds"][0]["title"] == "🔧 タスクを登録"
        async with otomo.app.core.database.sessions() as session:
            (task,) = list(await session.scalars(select(Task)))
        assert (task.owner_id, task.channel_id, task.to_dm) == (HANA_ID, GENERAL_CHANNEL_ID, False)

        await servers.change(GUILD_ID, {"tasks_enabled": False}, None)
        llm.queue(call, text("このサーバーではタスクがオフです。"))
        await otomo.ask("毎朝7時に今日の天気をまとめてここに投稿して", user_id=ADMIN_ID)
        refused = [m for m in llm.last_request.messages if m["role"] == "tool"][-1]["content"]
        assert "switched off in this server" in refused


async def scheduled(otomo: RunningBot, clock: ManualClock, prompt: str) -> int:
    """A daily 07:00 task in #general owned by kenji, stored as an approved call stores it."""
    view = await jobs(otomo).service.create(
        TaskSpec(
            guild_id=GUILD_ID,
            owner_id=ADMIN_ID,
            owner_name="kenji",
            channel_id=GENERAL_CHANNEL_ID,
            to_dm=False,
            prompt=prompt,
            language="ja",
            timezone=TOKYO,
            first_run=wall(local(clock, 1, 7)),
            repeat=RepeatRule(kind="daily"),
            tools=(),
        )
    )
    return view.id


async def test_runs_due_while_the_bot_was_down_run_late_inside_the_grace_and_skip_beyond(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        first = await scheduled(otomo, clock, "今日の天気をまとめて")
        clock.set(local(clock, 1, 7, 20))
        llm.queue(text("晴れです。"))
        assert await jobs(otomo).runner.run_due() == 1
        (late,) = task_posts(fake, GENERAL_CHANNEL_ID)
        assert late["content"].startswith("晴れです。\n-# ⏰ 20分遅れの実行です（予定 <t:")

        # The next morning the bot was down until 09:30: beyond the 30 minutes' grace.
        clock.set(local(clock, 1, 9, 30))
        assert await jobs(otomo).runner.run_due() == 1
        skipped = task_posts(fake, GENERAL_CHANNEL_ID)[-1]["content"]
        assert skipped.startswith(f"⏭️ タスク #{first} の <t:")
        assert skipped.endswith("Otomo が止まっていたため見送りました（2時間30分遅れ）。")
        assert [r.status for r in await runs_of(otomo)] == [RunStatus.LATE, RunStatus.SKIPPED]


async def test_a_deleted_channel_pauses_the_task_after_three_failures_and_tells_its_owner(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        task_id = await scheduled(otomo, clock, "今日の天気をまとめて")
        fake.inject(
            "POST",
            channel_id=GENERAL_CHANNEL_ID,
            status=404,
            code=10003,
            message="Unknown Channel",
            times=None,
        )
        llm.rule = lambda request: text("晴れです。")
        for day in (1, 2, 3):
            clock.set(local(clock, 1, 7) if day == 1 else clock.now() + timedelta(days=1))
            assert await jobs(otomo).runner.run_due() == 1
        fake.clear_faults()
        paused = await jobs(otomo).service.get(task_id, GUILD_ID)
        assert paused is not None and paused.state == "paused"
        assert paused.paused_reason == "投稿先のチャンネルが見つかりません"
        told = fake.messages(fake.dm_channel_id(ADMIN_ID))[-1]["content"]
        assert told.startswith(f"⏸️ タスク #{task_id}「今日の天気をまとめて」は 3 回続けて失敗")
        clock.set(clock.now() + timedelta(days=1))
        assert await jobs(otomo).runner.run_due() == 0
        assert task_posts(fake, GENERAL_CHANNEL_ID) == []


async def test_a_spent_budget_skips_the_run_with_one_line_and_calls_no_model(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        task_id = await scheduled(otomo, clock, "今日の天気をまとめて")
        clock.set(local(clock, 1, 6, 50))
        llm.queue(text("おはようございます。"))
        await otomo.ask("おはよう", user_id=ADMIN_ID)
        await otomo.app.core.servers.change(GUILD_ID, {"server_daily_tokens": 1}, None)
        asked = len(llm.requests)
        clock.set(local(clock, 0, 7))
        assert await jobs(otomo).runner.run_due() == 1
        assert len(llm.requests) == asked
        (line,) = task_posts(fake, GENERAL_CHANNEL_ID)
        assert line["content"].startswith(f"⏭️ タスク #{task_id} の <t:")
        assert "\n" not in line["content"]
        (run,) = await runs_of(otomo)
        assert run.status == RunStatus.SKIPPED


async def test_a_long_answer_is_split_and_pings_only_people_the_prompt_names(
    tmp_path: Path, fake: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        task_id = await scheduled(otomo, clock, f"<@{HANA_ID}> に今日の予定を長めにまとめて")
        paragraph = "今日の予定です。" * 60
        answer = "\n\n".join([f"@everyone <@&{MEMBER_ROLE_ID}> <@{HANA_ID}>", *[paragraph] * 9])
        llm.queue(text(answer))
        clock.set(local(clock, 1, 7))
        assert await jobs(otomo).runner.run_due() == 1
        nonce = task_posts(fake, GENERAL_CHANNEL_ID)[0]["nonce"]
        parts = [
            m for m in fake.messages(GENERAL_CHANNEL_ID) if str(m.get("nonce")).startswith(nonce)
        ]
        assert len(parts) > 1 and all(len(p["content"]) <= 2000 for p in parts)
        assert [p["nonce"] for p in parts] == [nonce] + [
            f"{nonce}p{n}" for n in range(1, len(parts))
        ]
        first = parts[0]
        assert first["mention_everyone"] is False and first["mention_roles"] == []
        assert [int(u["id"]) for u in first["mentions"]] == [HANA_ID]
        assert nonce.startswith(f"t{task_id}d")
