"""Tasks as members make them: schedules in the creator's zone, limits, each server's own."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.runtime.clock import ManualClock
from bot.servers.config import ServerConfig
from bot.servers.directory import ServerDirectory
from bot.servers.membership import Membership
from bot.storage.engine import Database
from bot.tasks.service import TaskError
from bot.tasks.table import TaskState
from tests.tasks.support import CHANNEL_B, GUILD_A, GUILD_B, OWNER, TOKYO, service_on, spec


def _tokyo(day: int, hour: int, minute: int = 0, month: int = 11) -> datetime:
    return datetime(2026, month, day, hour, minute, tzinfo=TOKYO).astimezone(UTC)


async def test_a_daily_task_runs_at_seven_in_the_creators_zone(
    database: Database, clock: ManualClock
) -> None:
    service = service_on(database.sessions, clock)
    task = await service.create(spec())
    assert task.next_run_at == _tokyo(30, 7)
    assert task.upcoming() == [_tokyo(30, 7), _tokyo(1, 7, month=12), _tokyo(2, 7, month=12)]


async def test_weekdays_at_half_past_eight_skip_the_weekend_and_holidays(
    database: Database, clock: ManualClock
) -> None:
    service = service_on(database.sessions, clock)
    task = await service.create(
        spec(first_run="2026-11-20T08:30", repeat={"kind": "weekdays", "skip_holidays": True})
    )
    # Asked on Sunday the 29th for a series that began on the 20th: Monday the 30th is next.
    assert task.upcoming(5) == [
        _tokyo(30, 8, 30),
        _tokyo(1, 8, 30, month=12),
        _tokyo(2, 8, 30, month=12),
        _tokyo(3, 8, 30, month=12),
        _tokyo(4, 8, 30, month=12),
    ]


async def test_a_weekly_task_keeps_its_wall_time_across_daylight_saving(
    database: Database, clock: ManualClock
) -> None:
    from zoneinfo import ZoneInfo

    service = service_on(database.sessions, clock)
    new_york = ZoneInfo("America/New_York")
    made = spec(first_run="2027-03-05T18:00", repeat={"kind": "weekly"})
    task = await service.create(
        type(made)(**{**made.__dict__, "timezone": new_york})  # type: ignore[arg-type]
    )
    times = [t.astimezone(new_york) for t in task.upcoming(3)]
    assert [(t.day, t.hour, t.minute) for t in times] == [(5, 18, 0), (12, 18, 0), (19, 18, 0)]
    assert times[0].utcoffset() != times[2].utcoffset()


async def test_a_task_more_often_than_allowed_or_in_the_past_is_refused(
    database: Database, clock: ManualClock
) -> None:
    service = service_on(database.sessions, clock)
    with pytest.raises(TaskError, match="too frequent"):
        await service.create(spec(repeat={"kind": "every_minutes", "interval": 5}))
    with pytest.raises(TaskError, match="has passed"):
        await service.create(spec(first_run="2026-11-01T07:00", once=True))
    with pytest.raises(TaskError, match="prompt"):
        await service.create(spec(prompt="  "))


async def test_a_server_cannot_pass_its_limit_and_another_server_is_not_counted(
    database: Database, clock: ManualClock
) -> None:
    service = service_on(database.sessions, clock, max_per_server=2)
    await service.create(spec())
    await service.create(spec())
    with pytest.raises(TaskError, match="limit"):
        await service.create(spec())
    await service.create(spec(guild_id=GUILD_B, channel_id=CHANNEL_B))
    assert len(await service.of(GUILD_A)) == 2
    assert len(await service.of(GUILD_B)) == 1


async def test_a_servers_task_is_invisible_and_untouchable_from_another_server(
    database: Database, clock: ManualClock
) -> None:
    service = service_on(database.sessions, clock)
    task = await service.create(spec())
    assert await service.get(task.id, GUILD_B) is None
    assert await service.of(GUILD_B) == []
    assert await service.delete(task.id, GUILD_B) is False
    with pytest.raises(TaskError, match="no task"):
        await service.pause(task.id, GUILD_B)
    assert await service.get(task.id, GUILD_A) is not None


async def test_dm_tasks_are_their_owners_own(database: Database, clock: ManualClock) -> None:
    service = service_on(database.sessions, clock)
    await service.create(spec(guild_id=None, channel_id=OWNER))
    await service.create(spec(guild_id=None, channel_id=7, owner_id=7))
    assert [t.owner_id for t in await service.of(None, owner_id=OWNER)] == [OWNER]
    assert await service.of(GUILD_A) == []


async def test_a_paused_task_resumes_at_its_next_time_ahead(
    database: Database, clock: ManualClock
) -> None:
    service = service_on(database.sessions, clock)
    task = await service.create(spec())
    assert await service.pause(task.id, GUILD_A) is True
    assert await service.pause(task.id, GUILD_A) is False
    assert (await service.get(task.id, GUILD_A)).upcoming() == []  # type: ignore[union-attr]
    clock.advance(timedelta(days=3))  # 2 December, 20:00 Tokyo
    resumed = await service.resume(task.id, GUILD_A)
    assert resumed.state == TaskState.ACTIVE
    assert resumed.next_run_at == _tokyo(3, 7, month=12)


async def test_changing_a_task_moves_its_schedule_and_tools(
    database: Database, clock: ManualClock
) -> None:
    service = service_on(database.sessions, clock)
    task = await service.create(spec())
    changed = await service.update(
        task.id,
        GUILD_A,
        first_run="2026-12-04T18:00",
        repeat=spec(repeat={"kind": "weekly"}).repeat,
        tools=("search_notes",),
        prompt="summarise this week's notes",
    )
    assert changed.next_run_at == _tokyo(4, 18, month=12)
    assert changed.upcoming(2)[1] == _tokyo(11, 18, month=12)
    assert changed.tools == ("search_notes",)
    assert changed.prompt == "summarise this week's notes"


async def test_a_departed_servers_tasks_are_forgotten_and_others_kept(
    database: Database, clock: ManualClock
) -> None:
    service = service_on(database.sessions, clock)
    await service.create(spec())
    await service.create(spec(guild_id=GUILD_B, channel_id=CHANNEL_B))
    assert await service.forget_server(GUILD_A) == 1
    assert await service.of(GUILD_A) == []
    assert len(await service.of(GUILD_B)) == 1


async def test_forgetting_a_departed_server_deletes_its_tasks_and_their_history(
    database: Database, clock: ManualClock
) -> None:
    service = service_on(database.sessions, clock)
    gone = await service.create(spec())
    kept = await service.create(spec(guild_id=GUILD_B, channel_id=CHANNEL_B))
    membership = Membership(
        database.sessions,
        clock,
        ServerDirectory(database.sessions, clock, ServerConfig()),
        retention_days=30,
        forgetters=[service.forget_server],
    )
    await membership.left(GUILD_A)
    clock.advance(timedelta(days=31))
    assert await membership.forget_departed() == [GUILD_A]
    assert await service.get(gone.id, GUILD_A) is None
    assert await service.get(kept.id, GUILD_B) is not None
