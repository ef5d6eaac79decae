"""How the reminder tools look to members on their cards, and the checks made of a call before
anyone is asked to approve it."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from pydantic import ValidationError

from bot.agent.tools import ToolContext
from bot.agent.tools.presentation import Label, Look
from bot.i18n import Language, Text, moment
from bot.reminders.errors import ReminderError
from bot.reminders.recipients import Recipients
from bot.reminders.service import ReminderService
from bot.schedule.repeat import RepeatRule
from bot.schedule.words import summary, summary_en


class ReminderDeps(Protocol):
    """What the reminder tools need of the bot's dependencies."""

    @property
    def reminders(self) -> ReminderService:
        """The reminder service (it wakes the delivery engine when a due time moves)."""
        ...

    @property
    def reminder_recipients(self) -> Recipients:
        """Finds the member or channel a reminder for someone else names."""
        ...


def _repeat_words(value: Any, language: Language) -> str | None:
    """A repeat rule in words (a one-time reminder shows nothing)."""
    if not value:
        return None
    try:
        rule = RepeatRule.model_validate(value)
    except ValidationError:
        return None
    return summary(rule) if language == "ja" else summary_en(rule)


def _when(output: Any) -> str | None:
    """The reminder's time in an output, as a Discord timestamp."""
    try:
        return moment(datetime.fromisoformat(str(output["when"])))
    except (KeyError, TypeError, ValueError):
        return None


def _said(ja: str, en: str) -> Any:
    """A summary of a reminder output: `{what}` and `{when}` filled in."""

    def say(output: Any, language: Language) -> str | None:
        if not isinstance(output, dict):
            return None
        when = _when(output) or ""
        what = str(output.get("what") or "")
        return (ja if language == "ja" else en).format(what=what, when=when)

    return say


def _listed(output: Any, language: Language) -> str | None:
    count = len(output.get("reminders") or []) if isinstance(output, dict) else 0
    if language == "ja":
        return f"リマインドは{count}件です。" if count else "リマインドはありません。"
    return f"You have {count} reminders." if count != 1 else "You have 1 reminder."


async def _which(
    arguments: dict[str, Any], ctx: ToolContext[ReminderDeps]
) -> list[tuple[Text, str]]:
    """The member's own reminder an id names, as they would recognise it (nothing for an id
    that is not theirs: the check refuses such a call before any card)."""
    try:
        reminder_id = int(arguments["reminder_id"])
    except (KeyError, TypeError, ValueError):
        return []
    view = await ctx.deps.reminders.get(reminder_id, ctx.timezone)
    if view is None or view.user_id != ctx.user_id:
        return []
    return [(Text("対象のリマインド", "Reminder"), f"{view.content} — {moment(view.due_at)}")]


WHEN = Label(Text("いつ", "When"), kind="time")
WHAT = Label(Text("内容", "What"))

CREATE_LOOK = Look(
    title=Text("リマインドを登録", "Set a reminder"),
    labels={
        "when": WHEN,
        "what": WHAT,
        "repeat": Label(Text("繰り返し", "Repeats"), render=_repeat_words),
        "for_member": Label(Text("相手（受け取ってから届きます）", "For (once they accept)")),
        "to_channel": Label(Text("投稿するチャンネル", "Posted in")),
    },
    summary=_said(
        "{when} に「{what}」をリマインドします。", "I'll remind you of “{what}” at {when}."
    ),
)
LIST_LOOK = Look(
    title=Text("リマインドの一覧", "Your reminders"),
    summary=_listed,
    doing=Text("リマインドの一覧を確認", "Checking your reminders"),
)
CANCEL_LOOK = Look(
    details=_which,
    title=Text("リマインドを取り消す", "Cancel a reminder"),
    summary=_said(
        "{when} の「{what}」のリマインドを取り消しました。", "Cancelled “{what}” ({when})."
    ),
)
EDIT_LOOK = Look(
    details=_which,
    title=Text("リマインドを変更", "Change a reminder"),
    labels={
        "when": Label(Text("新しい日時", "New time"), kind="time"),
        "what": Label(Text("新しい内容", "New text")),
    },
    summary=_said(
        "リマインドを {when}「{what}」に変更しました。", "Changed to “{what}” at {when}."
    ),
)
SNOOZE_LOOK = Look(
    details=_which,
    title=Text("リマインドをあとで", "Snooze a reminder"),
    labels={"until": Label(Text("次に知らせる日時", "Remind again at"), kind="time")},
    summary=_said(
        "「{what}」を {when} にもう一度リマインドします。",
        "I'll remind you of “{what}” again at {when}.",
    ),
)


async def check_create(arguments: dict[str, Any], ctx: ToolContext[ReminderDeps]) -> str | None:
    """A new reminder's time, text and repeat, checked before the member is asked."""
    repeat = arguments.get("repeat")
    try:
        ctx.deps.reminders.check_new(
            when=str(arguments.get("when", "")),
            content=str(arguments.get("what", "")),
            tz=ctx.timezone,
            repeat=RepeatRule.model_validate(repeat) if repeat else None,
        )
        # Who or where: found, allowed to post there, not blocked by the member.
        target = await ctx.deps.reminder_recipients.target(arguments, ctx.guild_id, ctx.user_id)
        await ctx.deps.reminders.check_target(ctx.guild_id, target, ctx.user_id)
    except ReminderError as exc:
        return str(exc)
    return None


def _check_change(verb: str, time_key: str | None, text_key: str | None) -> Any:
    async def check(arguments: dict[str, Any], ctx: ToolContext[ReminderDeps]) -> str | None:
        when = arguments.get(time_key) if time_key else None
        text = arguments.get(text_key) if text_key else None
        try:
            await ctx.deps.reminders.check_change(
                int(arguments["reminder_id"]),
                ctx.user_id,
                ctx.timezone,
                verb=verb,
                when=None if when is None else str(when),
                content=None if text is None else str(text),
            )
        except ReminderError as exc:
            return str(exc)
        return None

    return check


check_cancel = _check_change("cancel", None, None)
check_edit = _check_change("edit", "when", "what")
check_snooze = _check_change("snooze", "until", None)
