"""Tasks as members see them: create, change, pause, resume, delete, list, and their history."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.i18n import Language
from bot.runtime.clock import Clock
from bot.schedule.repeat import RepeatRule, dump_rule, load_rule
from bot.storage.engine import one_writer, write_sessions
from bot.tasks.schedule import Plan, after, plan
from bot.tasks.table import Task, TaskRun, TaskState

PROMPT_CHARS = 2000


class TaskError(ValueError):
    """A task cannot be made or changed like that; the message says why, for the model."""


@dataclass(frozen=True)
class TaskSpec:
    """What a new task is: who asks, where it posts, what it asks the model, when, with what."""

    guild_id: int | None
    owner_id: int
    owner_name: str
    channel_id: int
    to_dm: bool
    prompt: str
    language: Language
    timezone: ZoneInfo
    first_run: str
    repeat: RepeatRule | None
    tools: tuple[str, ...]


@dataclass(frozen=True)
class TaskView:
    """A task as read from the table."""

    id: int
    guild_id: int | None
    owner_id: int
    owner_name: str
    channel_id: int
    to_dm: bool
    prompt: str
    language: Language
    tz: ZoneInfo
    repeat: RepeatRule | None
    tools: tuple[str, ...]
    state: str
    next_run_at: datetime
    occurrence: int
    failures_in_row: int
    paused_reason: str | None

    @classmethod
    def of(cls, row: Task) -> TaskView:
        """The view of a row."""
        return cls(
            id=row.id,
            guild_id=row.guild_id,
            owner_id=row.owner_id,
            owner_name=row.owner_name,
            channel_id=row.channel_id,
            to_dm=row.to_dm,
            prompt=row.prompt,
            language="en" if row.language == "en" else "ja",
            tz=ZoneInfo(row.timezone),
            repeat=load_rule(row.repeat),
            tools=tuple(str(name) for name in row.tools),
            state=row.state,
            next_run_at=row.next_run_at,
            occurrence=row.occurrence,
            failures_in_row=row.failures_in_row,
            paused_reason=row.paused_reason,
        )

    def upcoming(self, count: int = 3) -> list[datetime]:
        """The next count run times (UTC); none while paused or finished."""
        if self.state != TaskState.ACTIVE:
            return []
        return Plan(self.next_run_at, self.occurrence, self.repeat, self.tz).upcoming(count)


@dataclass(frozen=True)
class RunView:
    """One run in a task's history."""

    due_at: datetime
    status: str
    late_seconds: int | None
    reason: str | None
    manual: bool


class TaskService:
    """The tasks table, read and written for members (the runner claims runs on its own)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        *,
        max_per_server: int,
        min_interval_minutes: int,
    ) -> None:
        self._sessions = sessions
        self._writes = write_sessions(sessions)
        self._clock = clock
        self.max_per_server = max_per_server
        self.min_interval_minutes = min_interval_minutes

    def plan(self, first_run: str, repeat: RepeatRule | None, tz: ZoneInfo) -> Plan:
        """The schedule worked out (raises TaskError when it cannot be used)."""
        try:
            return plan(
                first_run,
                repeat,
                tz,
                self._clock.now(),
                min_interval_minutes=self.min_interval_minutes,
            )
        except ValueError as exc:
            raise TaskError(str(exc)) from None

    async def create(self, spec: TaskSpec, *, limit: int | None = None) -> TaskView:
        """Add a task; refused past the server's limit (limit, else the environment's; 0:
        none)."""
        prompt = spec.prompt.strip()
        if not prompt:
            raise TaskError("the task needs a prompt: what should Otomo do each time?")
        if len(prompt) > PROMPT_CHARS:
            raise TaskError(f"the prompt is too long: at most {PROMPT_CHARS} characters")
        schedule = self.plan(spec.first_run, spec.repeat, spec.timezone)
        cap = self.max_per_server if limit is None else limit
        now = self._clock.now()
        async with one_writer(self._sessions), self._writes() as session, session.begin():
            if spec.guild_id is not None:
                count = await session.scalar(
                    select(func.count())
                    .select_from(Task)
                    .where(Task.guild_id == spec.guild_id, Task.state != TaskState.FINISHED)
                )
                if cap and (count or 0) >= cap:
                    raise TaskError(
                        f"this server has {count} tasks, its limit: delete one before adding "
                        "another"
                    )
            row = Task(
                guild_id=spec.guild_id,
                owner_id=spec.owner_id,
                owner_name=spec.owner_name[:100],
                channel_id=spec.channel_id,
                to_dm=spec.to_dm,
                prompt=prompt,
                language=spec.language,
                timezone=spec.timezone.key,
                repeat=dump_rule(schedule.rule),
                tools=list(spec.tools),
                state=TaskState.ACTIVE,
                next_run_at=schedule.first,
                occurrence=schedule.occurrence,
                failures_in_row=0,
                created_at=now,
                updated_at=now,
            )
            session.add(row)
            await session.flush()
            return TaskView.of(row)

    async def get(self, task_id: int, guild_id: int | None) -> TaskView | None:
        """The task, if it belongs to this server (None: DMs' tasks)."""
        async with self._sessions() as session:
            row = await session.get(Task, task_id)
            return None if row is None or row.guild_id != guild_id else TaskView.of(row)

    async def of(self, guild_id: int | None, owner_id: int | None = None) -> list[TaskView]:
        """A server's tasks, or (guild_id None) a member's DM tasks, oldest first."""
        query = select(Task).where(
            Task.guild_id.is_(None) if guild_id is None else Task.guild_id == guild_id
        )
        if owner_id is not None:
            query = query.where(Task.owner_id == owner_id)
        async with self._sessions() as session:
            rows = await session.scalars(query.order_by(Task.id))
            return [TaskView.of(row) for row in rows]

    async def update(
        self,
        task_id: int,
        guild_id: int | None,
        *,
        prompt: str | None = None,
        first_run: str | None = None,
        repeat: RepeatRule | None = None,
        tools: tuple[str, ...] | None = None,
    ) -> TaskView:
        """Change a task's prompt, schedule or tools (a new schedule starts from first_run)."""
        async with one_writer(self._sessions), self._writes() as session, session.begin():
            row = await self._row(session, task_id, guild_id)
            if prompt is not None:
                if not prompt.strip() or len(prompt) > PROMPT_CHARS:
                    raise TaskError(f"the prompt must be 1 to {PROMPT_CHARS} characters")
                row.prompt = prompt.strip()
            if first_run is not None:
                schedule = self.plan(first_run, repeat, ZoneInfo(row.timezone))
                row.repeat = dump_rule(schedule.rule)
                row.next_run_at = schedule.first
                row.occurrence = schedule.occurrence
                if row.state == TaskState.FINISHED:
                    row.state = TaskState.ACTIVE
            elif repeat is not None:
                raise TaskError("a new repeat rule needs first_run: when the new schedule starts")
            if tools is not None:
                row.tools = list(tools)
            row.updated_at = self._clock.now()
            return TaskView.of(row)

    async def pause(self, task_id: int, guild_id: int | None, reason: str | None = None) -> bool:
        """Pause an active task; False when it was not active."""
        async with one_writer(self._sessions), self._writes() as session, session.begin():
            row = await self._row(session, task_id, guild_id)
            if row.state != TaskState.ACTIVE:
                return False
            row.state = TaskState.PAUSED
            row.paused_reason = reason
            row.updated_at = self._clock.now()
            return True

    async def resume(self, task_id: int, guild_id: int | None) -> TaskView:
        """Resume a paused task from its next time still ahead (missed runs are not made up)."""
        now = self._clock.now()
        async with one_writer(self._sessions), self._writes() as session, session.begin():
            row = await self._row(session, task_id, guild_id)
            if row.state != TaskState.PAUSED:
                raise TaskError("the task is not paused")
            if row.next_run_at <= now:
                tz = ZoneInfo(row.timezone)
                nxt = after(load_rule(row.repeat), row.next_run_at, row.occurrence, tz, now)
                if nxt is None:
                    raise TaskError("the task has no run ahead: change its schedule instead")
                row.next_run_at, row.occurrence = nxt
            row.state = TaskState.ACTIVE
            row.paused_reason = None
            row.failures_in_row = 0
            row.updated_at = now
            return TaskView.of(row)

    async def delete(self, task_id: int, guild_id: int | None) -> bool:
        """Delete a task and its history; False when there was none."""
        async with one_writer(self._sessions), self._writes() as session, session.begin():
            row = await session.get(Task, task_id)
            if row is None or row.guild_id != guild_id:
                return False
            await session.execute(delete(TaskRun).where(TaskRun.task_id == task_id))
            await session.delete(row)
            return True

    async def history(self, task_id: int, guild_id: int | None, limit: int = 10) -> list[RunView]:
        """The task's last runs, newest first."""
        async with self._sessions() as session:
            rows = await session.scalars(
                select(TaskRun)
                .where(TaskRun.task_id == task_id, TaskRun.guild_id.is_not_distinct_from(guild_id))
                .order_by(TaskRun.started_at.desc(), TaskRun.id.desc())
                .limit(limit)
            )
            return [RunView(r.due_at, r.status, r.late_seconds, r.reason, r.manual) for r in rows]

    async def forget_server(self, guild_id: int) -> int:
        """Delete a departed server's tasks and their runs; how many rows went."""
        async with one_writer(self._sessions), self._writes() as session, session.begin():
            runs = await session.execute(delete(TaskRun).where(TaskRun.guild_id == guild_id))
            tasks = await session.execute(delete(Task).where(Task.guild_id == guild_id))
            return int(getattr(runs, "rowcount", 0) or 0) + int(getattr(tasks, "rowcount", 0) or 0)

    async def _row(self, session: AsyncSession, task_id: int, guild_id: int | None) -> Task:
        row = await session.get(Task, task_id)
        if row is None or row.guild_id != guild_id:
            raise TaskError(f"there is no task #{task_id} here")
        return row
