"""Reminder tools for the agent: create, list, edit, snooze and cancel the requester's reminders."""

from __future__ import annotations

from typing import Any

from bot.agent.tools import Tool, ToolContext, ToolError, tool
from bot.reminders.errors import ReminderError
from bot.reminders.looks import (
    CANCEL_LOOK,
    CREATE_LOOK,
    EDIT_LOOK,
    LIST_LOOK,
    SNOOZE_LOOK,
    ReminderDeps,
    check_cancel,
    check_create,
    check_edit,
    check_snooze,
)
from bot.schedule.repeat import RepeatRule
from bot.schedule.times import UnreadableTime, local_iso, parse_local_time

__all__ = ["REMINDER_TOOLS", "ReminderDeps"]


@tool(look=CREATE_LOOK, check=check_create)
async def create_reminder(
    ctx: ToolContext[ReminderDeps],
    when: str,
    what: str,
    repeat: RepeatRule | None = None,
    for_member: str | None = None,
    to_channel: str | None = None,
) -> dict[str, Any]:
    """Set a reminder.

    Args:
        when: local ISO 8601, no offset; a repeat's first.
        what: in the member's words.
        repeat: omit for a one-time reminder.
        for_member: another member (@name); omit for the member.
        to_channel: another channel (#name); omit for this one.
    """
    arguments = {"for_member": for_member, "to_channel": to_channel}
    try:
        target = await ctx.deps.reminder_recipients.target(arguments, ctx.guild_id, ctx.user_id)
        view = await ctx.deps.reminders.create(
            user_id=ctx.user_id,
            user_display_name=ctx.user_name,
            guild_id=ctx.guild_id,
            channel_id=ctx.channel_id,
            when=when,
            content=what,
            tz=ctx.timezone,
            repeat=repeat,
            origin_message_id=ctx.origin_message_id,
            language=ctx.language,
            target=target,
        )
    except ReminderError as exc:
        raise ToolError(str(exc)) from None
    output = {"created": True, **view.to_output(ctx.now())}
    if target.member is not None:
        output["for_member"] = target.member.name
        output["note"] = "they were asked to accept it; it is sent only once they do"
    if target.channel is not None:
        output["channel"] = f"<#{target.channel.channel_id}>"
    return output


@tool(requires_approval=False, read_only=True, look=LIST_LOOK)
async def list_reminders(ctx: ToolContext[ReminderDeps]) -> dict[str, Any]:
    """List the member's pending reminders with their ids."""
    views = await ctx.deps.reminders.list_pending(ctx.user_id, ctx.timezone)
    return {
        "timezone": ctx.timezone.key,
        "now": local_iso(ctx.now(), ctx.timezone),
        "reminders": [view.to_output(ctx.now()) for view in views],
    }


@tool(look=CANCEL_LOOK, check=check_cancel)
async def cancel_reminder(ctx: ToolContext[ReminderDeps], reminder_id: int) -> dict[str, Any]:
    """Cancel a pending reminder of the member (a repeating one ends).

    Args:
        reminder_id: id from list_reminders.
    """
    try:
        view = await ctx.deps.reminders.cancel(reminder_id, ctx.user_id, ctx.timezone)
    except ReminderError as exc:
        raise ToolError(str(exc)) from None
    return {"cancelled": True, **view.to_output(ctx.now())}


@tool(look=EDIT_LOOK, check=check_edit)
async def edit_reminder(
    ctx: ToolContext[ReminderDeps],
    reminder_id: int,
    when: str | None = None,
    what: str | None = None,
) -> dict[str, Any]:
    """Change the time or text of a pending reminder of the member.

    Args:
        reminder_id: id from list_reminders.
        when: new local ISO 8601 time; omit to keep it (a repeat keeps its time of day).
        what: new text; omit to keep it.
    """
    try:
        view = await ctx.deps.reminders.edit(
            reminder_id, ctx.user_id, ctx.timezone, when=when, content=what
        )
    except ReminderError as exc:
        raise ToolError(str(exc)) from None
    return {"edited": True, **view.to_output(ctx.now())}


@tool(look=SNOOZE_LOOK, check=check_snooze)
async def snooze_reminder(
    ctx: ToolContext[ReminderDeps], reminder_id: int, until: str
) -> dict[str, Any]:
    """Remind again later about a reminder already posted.

    Args:
        reminder_id: id on the posted reminder or from list_reminders.
        until: local ISO 8601 time to remind again.
    """
    try:
        instant = parse_local_time(until, ctx.timezone)
    except UnreadableTime as exc:
        raise ToolError(f"{exc}: work out the exact local date and time") from None
    try:
        view = await ctx.deps.reminders.snooze(reminder_id, ctx.user_id, instant, ctx.timezone)
    except ReminderError as exc:
        raise ToolError(str(exc)) from None
    return {"snoozed": True, **view.to_output(ctx.now())}


REMINDER_TOOLS: list[Tool] = [
    create_reminder,
    list_reminders,
    cancel_reminder,
    edit_reminder,
    snooze_reminder,
]
