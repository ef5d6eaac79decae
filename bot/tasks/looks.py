"""How the task tools look on their cards (the prompt, the next three runs, where, which tools),
and the checks made of a call before anyone is asked to approve it."""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import ValidationError

from bot.agent.tools import ToolContext
from bot.agent.tools.presentation import Label, Look
from bot.i18n import Language, Text, moment
from bot.schedule.repeat import RepeatRule
from bot.schedule.words import summary, summary_en
from bot.servers.directory import ServerDirectory
from bot.tasks.server_settings import MAX_TASKS, TASK_CREATOR_ROLES, TASKS_ENABLED
from bot.tasks.service import TaskError, TaskService, TaskView
from bot.tasks.settings import TaskSettings


class TaskDeps(Protocol):
    """What the task tools need of the bot's dependencies."""

    @property
    def servers(self) -> ServerDirectory:
        """Each server's settings (tasks on or off, its most tasks)."""
        ...


DM = "dm"
HERE = "here"


def service_of(ctx: ToolContext[Any]) -> TaskService:
    """The task service over the run's database, clock and limits."""
    limits = ctx.settings.section(TaskSettings)
    return TaskService(
        ctx.sessions,
        ctx.clock,
        max_per_server=limits.max_per_server,
        min_interval_minutes=limits.min_interval_minutes,
    )


def rule_of(value: Any) -> RepeatRule | None:
    """The repeat rule of a call's arguments (None: a one-time task or a bad rule)."""
    if not value:
        return None
    try:
        return RepeatRule.model_validate(value)
    except ValidationError:
        return None


def destination_of(value: Any, ctx: ToolContext[Any]) -> tuple[int, bool]:
    """(channel id, to the owner's DMs) of a call's destination: here, dm, or <#channel>."""
    text = str(value or HERE).strip().lower()
    if ctx.guild_id is None or text in (DM, "dms", "direct message"):
        return (ctx.channel_id if ctx.guild_id is None else ctx.user_id), True
    if text == HERE:
        return ctx.channel_id, False
    digits = "".join(ch for ch in text if ch.isdigit())
    if not digits:
        raise TaskError('destination must be "here", "dm" or a channel such as <#123>')
    return int(digits), False


def _repeat_words(value: Any, language: Language) -> str | None:
    rule = rule_of(value)
    if rule is None:
        return "1回だけ" if language == "ja" else "once"
    return summary(rule) if language == "ja" else summary_en(rule)


def _destination_words(value: Any, language: Language) -> str | None:
    text = str(value or HERE).strip()
    if text.lower() == DM:
        return "あなたの DM" if language == "ja" else "your DMs"
    if text.lower() == HERE:
        return "このチャンネル" if language == "ja" else "this channel"
    digits = "".join(ch for ch in text if ch.isdigit())
    return f"<#{digits}>" if digits else text


def _tools_words(value: Any, language: Language) -> str | None:
    names = [str(n) for n in value or []]
    if not names:
        return "なし" if language == "ja" else "none"
    return ", ".join(f"`{n}`" for n in names)


async def _next_runs(arguments: dict[str, Any], ctx: ToolContext[Any]) -> list[tuple[Text, str]]:
    """The next three run times, as Discord timestamps each member reads in their own zone."""
    try:
        plan = service_of(ctx).plan(
            str(arguments.get("first_run", "")), rule_of(arguments.get("repeat")), ctx.timezone
        )
    except TaskError:
        return []
    times = " · ".join(moment(t, "f") for t in plan.upcoming(3))
    return [(Text("次の実行", "Next runs"), times)]


async def _which(arguments: dict[str, Any], ctx: ToolContext[Any]) -> list[tuple[Text, str]]:
    view = await _task_of(arguments, ctx)
    if view is None:
        return []
    return [(Text("対象のタスク", "Task"), f"#{view.id} {view.prompt[:80]}")]


async def _task_of(arguments: dict[str, Any], ctx: ToolContext[Any]) -> TaskView | None:
    try:
        task_id = int(arguments["task_id"])
    except (KeyError, TypeError, ValueError):
        return None
    return await service_of(ctx).get(task_id, ctx.guild_id)


def _said(ja: str, en: str) -> Any:
    def say(output: Any, language: Language) -> str | None:
        if not isinstance(output, dict):
            return None
        return (ja if language == "ja" else en).format(id=output.get("id", "?"))

    return say


async def _changed_details(
    arguments: dict[str, Any], ctx: ToolContext[Any]
) -> list[tuple[Text, str]]:
    return [*(await _which(arguments, ctx)), *(await _next_runs(arguments, ctx))]


PROMPT = Label(Text("毎回すること", "What it does each time"))
LABELS = {
    "prompt": PROMPT,
    "first_run": Label(Text("最初の実行", "First run"), kind="time"),
    "repeat": Label(Text("繰り返し", "Repeats"), render=_repeat_words),
    "destination": Label(Text("投稿先", "Posts to"), render=_destination_words),
    "tools": Label(Text("使うツール", "Tools it may use"), render=_tools_words),
}

CREATE_LOOK = Look(
    title=Text("タスクを登録", "Schedule a task"),
    labels=LABELS,
    details=_next_runs,
    summary=_said("タスク #{id} を登録しました。", "Task #{id} is scheduled."),
)
UPDATE_LOOK = Look(
    title=Text("タスクを変更", "Change a task"),
    labels=LABELS,
    details=_changed_details,
    summary=_said("タスク #{id} を変更しました。", "Task #{id} is changed."),
)
DELETE_LOOK = Look(
    title=Text("タスクを削除", "Delete a task"),
    details=_which,
    summary=_said("タスク #{id} を削除しました。", "Task #{id} is deleted."),
)
LIST_LOOK = Look(
    title=Text("タスクの一覧", "Scheduled tasks"),
    doing=Text("タスクの一覧を確認", "Checking the scheduled tasks"),
)


def _may_post_to_channel(ctx: ToolContext[TaskDeps], arguments: dict[str, Any]) -> str | None:
    """Posting to a channel needs Manage Server or a task-creator role; DMs anyone."""
    try:
        _, to_dm = destination_of(arguments.get("destination"), ctx)
    except TaskError as exc:
        return str(exc)
    if to_dm or ctx.manages_server or ctx.guild_id is None:
        return None
    creators = ctx.deps.servers.config(ctx.guild_id).get(TASK_CREATOR_ROLES)
    if creators & set(ctx.role_ids):
        return None
    return (
        "only members with Manage Server or a task-creator role (/otomo settings) may schedule "
        'posts to a channel: offer destination "dm" instead'
    )


def switched_off(ctx: ToolContext[TaskDeps]) -> str | None:
    """Why tasks cannot be made here (the server switched them off), or None."""
    if ctx.guild_id is not None and not ctx.deps.servers.config(ctx.guild_id).get(TASKS_ENABLED):
        return (
            "scheduled tasks are switched off in this server (an admin can switch them on in "
            "/otomo settings)"
        )
    return None


def task_limit(ctx: ToolContext[TaskDeps]) -> int | None:
    """The server's most tasks (None in DMs: the environment's)."""
    return None if ctx.guild_id is None else ctx.deps.servers.config(ctx.guild_id).get(MAX_TASKS)


async def check_create(arguments: dict[str, Any], ctx: ToolContext[TaskDeps]) -> str | None:
    """A new task's schedule, prompt and destination, checked before the member is asked."""
    if refusal := switched_off(ctx):
        return refusal
    if refusal := _may_post_to_channel(ctx, arguments):
        return refusal
    if not str(arguments.get("prompt", "")).strip():
        return "the task needs a prompt: what should be done each time?"
    try:
        service_of(ctx).plan(
            str(arguments.get("first_run", "")), rule_of(arguments.get("repeat")), ctx.timezone
        )
    except TaskError as exc:
        return str(exc)
    return None


async def check_owned(arguments: dict[str, Any], ctx: ToolContext[Any]) -> str | None:
    """The task exists here and the member may change it (its owner, or an admin)."""
    view = await _task_of(arguments, ctx)
    if view is None:
        return "there is no such task here: list_tasks shows their ids"
    if view.owner_id != ctx.user_id and not ctx.is_admin:
        return "only the task's owner or a server admin may change or delete it"
    if "first_run" in arguments:
        try:
            service_of(ctx).plan(
                str(arguments["first_run"]), rule_of(arguments.get("repeat")), view.tz
            )
        except TaskError as exc:
            return str(exc)
    return None
