"""/otomo tasks: the server's tasks with next run, last outcome and owner; pause, resume, run now,
delete and history for the owner or an admin, refusals for anyone else; another server's tasks
never show."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bot.runtime.clock import ManualClock
from bot.schedule.repeat import RepeatRule
from bot.tasks.discord_part import TaskJobs
from bot.tasks.service import TaskSpec, TaskView
from bot.tasks.table import TaskState
from tests.e2e.harness import RunningBot, running_bot
from tests.fakes.discord_server import (
    ADMIN_ID,
    GENERAL_CHANNEL_ID,
    GUILD_ID,
    HANA_ID,
    SECOND_GENERAL_CHANNEL_ID,
    SECOND_GUILD_ID,
    SECOND_OWNER_ID,
    FakeDiscord,
    Json,
)
from tests.fakes.llm_server import ScriptedLLM, text

pytestmark = pytest.mark.e2e

TOKYO = ZoneInfo("Asia/Tokyo")


@pytest.fixture
def clock() -> ManualClock:
    """20:00 in Tokyo, weeks ahead of the real clock (the scheduler never fires by itself)."""
    day = datetime.now(TOKYO).date() + timedelta(days=60)
    return ManualClock(datetime.combine(day, time(20, 0), tzinfo=TOKYO))


async def schedule(
    otomo: RunningBot, clock: ManualClock, owner_id: int, prompt: str, *, guild_id: int = GUILD_ID
) -> TaskView:
    """A daily 07:00 task, stored as the approved create_task call stores it."""
    jobs = otomo.app.bot.get_cog("TaskJobs")
    assert isinstance(jobs, TaskJobs)
    day = clock.now().astimezone(TOKYO).date() + timedelta(days=1)
    channel = GENERAL_CHANNEL_ID if guild_id == GUILD_ID else SECOND_GENERAL_CHANNEL_ID
    return await jobs.service.create(
        TaskSpec(
            guild_id=guild_id,
            owner_id=owner_id,
            owner_name="someone",
            channel_id=channel,
            to_dm=False,
            prompt=prompt,
            language="ja",
            timezone=TOKYO,
            first_run=f"{day.isoformat()}T07:00",
            repeat=RepeatRule(kind="daily"),
            tools=(),
        )
    )


def components(message: Json) -> list[Json]:
    """Every component of a message, in order."""
    return [c for row in message.get("components") or [] for c in row.get("components") or []]


async def open_panel(fake: FakeDiscord, user_id: int, channel_id: int = GENERAL_CHANNEL_ID) -> Any:
    """Run /otomo tasks; the interaction record."""
    record = await fake.invoke_slash("otomo tasks", user_id=user_id, channel_id=channel_id)
    await record.wait_response()
    return record


async def act(fake: FakeDiscord, panel: Any, user_id: int, task_id: int, label: str) -> str:
    """Choose the task in the panel, press the button with this label; what the bot said."""
    message = panel.original_message()
    assert message is not None
    menu = next(c for c in components(message) if c["type"] == 3)
    chosen = await fake.choose_select(
        int(message["id"]), menu["custom_id"], [str(task_id)], user_id
    )
    await chosen.wait_response()
    button = next(c for c in components(message) if c.get("label") == label)
    click = await fake.click_button(int(message["id"]), button["custom_id"], user_id)
    response = await click.wait_response()
    if response["type"] == 4:  # answered at once (a refusal)
        return str(response["data"]["content"])
    return str((await click.wait_followup())["content"])


async def test_owners_and_admins_manage_tasks_and_others_are_refused(
    tmp_path: Path, two_servers: FakeDiscord, llm: ScriptedLLM, clock: ManualClock
) -> None:
    fake = two_servers
    async with running_bot(tmp_path, fake=fake, llm=llm, clock=clock) as otomo:
        admins = await schedule(otomo, clock, ADMIN_ID, "今日のイベントをまとめて")
        hanas = await schedule(otomo, clock, HANA_ID, "今日の天気を教えて")
        await schedule(otomo, clock, SECOND_OWNER_ID, "秘密の予定", guild_id=SECOND_GUILD_ID)

        panel = await open_panel(fake, HANA_ID)
        shown = (await panel.wait_response())["data"]["content"]
        assert f"**#{admins.id}** 今日のイベントをまとめて" in shown
        assert f"**#{hanas.id}** 今日の天気を教えて" in shown
        assert "秘密の予定" not in shown
        assert "まだ実行なし" in shown and f"<@{ADMIN_ID}>" in shown

        refused = await act(fake, panel, HANA_ID, admins.id, "一時停止")
        assert refused == "このタスクを操作できるのは、作成者とサーバー管理者だけです。"
        refused = await act(fake, panel, HANA_ID, admins.id, "削除")
        assert "作成者とサーバー管理者だけ" in refused
        jobs = otomo.app.bot.get_cog("TaskJobs")
        assert isinstance(jobs, TaskJobs)
        kept = await jobs.service.get(admins.id, GUILD_ID)
        assert kept is not None and kept.state == TaskState.ACTIVE

        said = await act(fake, panel, HANA_ID, hanas.id, "一時停止")
        assert said == f"タスク #{hanas.id} を一時停止しました。"
        paused = await jobs.service.get(hanas.id, GUILD_ID)
        assert paused is not None and paused.state == TaskState.PAUSED
        said = await act(fake, panel, HANA_ID, hanas.id, "再開")
        assert said.startswith(f"タスク #{hanas.id} を再開しました。次回は <t:")

        llm.queue(text("今日は晴れです。"))
        said = await act(fake, panel, HANA_ID, hanas.id, "今すぐ実行")
        assert said == f"タスク #{hanas.id} を実行しました: 定刻どおり"
        posted = [
            m for m in fake.messages(GENERAL_CHANNEL_ID) if m["content"] == "今日は晴れです。"
        ]
        assert len(posted) == 1 and posted[0]["nonce"].startswith(f"t{hanas.id}m")
        history = await act(fake, panel, HANA_ID, hanas.id, "履歴")
        assert history.endswith("— 定刻どおり")

        # An admin may pause or delete anyone's task.
        admin_panel = await open_panel(fake, ADMIN_ID)
        said = await act(fake, admin_panel, ADMIN_ID, hanas.id, "削除")
        assert said == f"タスク #{hanas.id} を削除しました。"
        assert await jobs.service.get(hanas.id, GUILD_ID) is None

        # The second server sees only its own.
        second = await open_panel(fake, SECOND_OWNER_ID, SECOND_GENERAL_CHANNEL_ID)
        theirs = (await second.wait_response())["data"]["content"]
        assert "秘密の予定" in theirs and "今日のイベント" not in theirs
