"""Task tools for the agent: schedule, change, delete and list the server's tasks."""

from __future__ import annotations

from typing import Any, Literal

from bot.agent.tools import Tool, ToolContext, ToolError, tool
from bot.i18n import Language, moment
from bot.schedule.repeat import RepeatRule
from bot.schedule.times import local_iso
from bot.schedule.words import summary, summary_en
from bot.tasks.looks import (
    CREATE_LOOK,
    DELETE_LOOK,
    LIST_LOOK,
    UPDATE_LOOK,
    TaskDeps,
    check_create,
    check_owned,
    destination_of,
    service_of,
    task_limit,
)
from bot.tasks.service import TaskError, TaskSpec, TaskView

__all__ = ["TASK_TOOLS"]


def _output(view: TaskView, language: Language) -> dict[str, Any]:
    return {
        "id": view.id,
        "prompt": view.prompt,
        "next_runs": [local_iso(t, view.tz) for t in view.upcoming(3)],
        "next_runs_shown": [moment(t, "f") for t in view.upcoming(3)],
        "repeat": None
        if view.repeat is None
        else (summary(view.repeat) if language == "ja" else summary_en(view.repeat)),
        "destination": "dm" if view.to_dm else f"<#{view.channel_id}>",
        "tools": list(view.tools),
        "state": view.state,
    }


def _language(ctx: ToolContext[Any]) -> Language:
    return "en" if ctx.language == "en" else "ja"


@tool(look=CREATE_LOOK, check=check_create)
async def create_task(
    ctx: ToolContext[TaskDeps],
    prompt: str,
    first_run: str,
    repeat: RepeatRule | None = None,
    destination: str = "here",
    tools: list[str] | None = None,
) -> dict[str, Any]:
    """Schedule a task: at each time Otomo runs the prompt with the named tools and posts the
    answer. Use it for anything done on a schedule that needs thinking or fresh data
    (summaries, forecasts, lists); a reminder only repeats fixed text.

    Args:
        prompt: what to do each time, in the member's words and language, e.g.
            今日の天気とイベントをまとめて.
        first_run: local date and time in ISO 8601 of the first run, e.g. 2026-12-01T07:00.
        repeat: how it repeats (daily, weekdays, weekly...); leave it out for one run.
        destination: "here" (this channel), "dm" (the member's DMs) or a channel as <#id>.
        tools: the read-only tools each run may use, e.g. ["get_weather_forecast"].
    """
    try:
        channel_id, to_dm = destination_of(destination, ctx)
        view = await service_of(ctx).create(
            TaskSpec(
                guild_id=ctx.guild_id,
                owner_id=ctx.user_id,
                owner_name=ctx.user_name,
                channel_id=channel_id,
                to_dm=to_dm,
                prompt=prompt,
                language=_language(ctx),
                timezone=ctx.timezone,
                first_run=first_run,
                repeat=repeat,
                tools=tuple(tools or ()),
            ),
            limit=task_limit(ctx),
        )
    except TaskError as exc:
        raise ToolError(str(exc)) from None
    return {"created": True, **_output(view, _language(ctx))}


@tool(look=UPDATE_LOOK, check=check_owned)
async def update_task(
    ctx: ToolContext[Any],
    task_id: int,
    prompt: str | None = None,
    first_run: str | None = None,
    repeat: RepeatRule | None = None,
    tools: list[str] | None = None,
) -> dict[str, Any]:
    """Change a scheduled task's prompt, schedule (first_run, with repeat) or tools.

    Args:
        task_id: the task's id from list_tasks.
        prompt: the new prompt.
        first_run: when the new schedule starts (local ISO 8601).
        repeat: the new repeat rule (with first_run).
        tools: the new list of tools.
    """
    try:
        view = await service_of(ctx).update(
            task_id,
            ctx.guild_id,
            prompt=prompt,
            first_run=first_run,
            repeat=repeat,
            tools=None if tools is None else tuple(tools),
        )
    except TaskError as exc:
        raise ToolError(str(exc)) from None
    return {"updated": True, **_output(view, _language(ctx))}


@tool(look=DELETE_LOOK, check=check_owned)
async def delete_task(ctx: ToolContext[Any], task_id: int) -> dict[str, Any]:
    """Delete a scheduled task and its history.

    Args:
        task_id: the task's id from list_tasks.
    """
    if not await service_of(ctx).delete(task_id, ctx.guild_id):
        raise ToolError("there is no such task here: list_tasks shows their ids")
    return {"deleted": True, "id": task_id}


@tool(requires_approval=False, read_only=True, look=LIST_LOOK)
async def list_tasks(
    ctx: ToolContext[Any], whose: Literal["server", "mine"] = "server"
) -> dict[str, Any]:
    """List this server's scheduled tasks (in DMs: the member's own) with ids and next runs.

    Args:
        whose: "server" for every task of this server, "mine" for the member's own.
    """
    owner = ctx.user_id if whose == "mine" or ctx.guild_id is None else None
    views = await service_of(ctx).of(ctx.guild_id, owner)
    return {"tasks": [_output(v, _language(ctx)) for v in views]}


TASK_TOOLS: list[Tool] = [create_task, update_task, delete_task, list_tasks]
