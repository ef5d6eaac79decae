"""/remind list, /remind cancel, /timezone set and /timezone show (thin: they call services)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import discord
from discord import app_commands
from discord.ext import commands

from bot.members.preferences import UnknownTimezone, UserPreferences, timezone_names
from bot.reminders.display import ReminderView
from bot.reminders.errors import (
    NotReminderOwner,
    ReminderClosed,
    ReminderError,
    ReminderNotFound,
)
from bot.reminders.service import MAX_LISTED, ReminderService
from bot.reminders.times import local_text
from bot.text.clip import clip

# Discord allows at most 25 options in a select menu and 25 autocomplete choices.
SELECT_LIMIT = 25
# Select-option labels, descriptions and choice names are at most 100 characters.
OPTION_CHARS = 100
# How much of a reminder's text one line of the list shows.
LINE_CONTENT_CHARS = 60
LIST_COLOUR = discord.Colour.from_rgb(255, 170, 60)


def reminder_line(view: ReminderView, now: datetime) -> str:
    """`#12 12月1日(火) 09:00 「歯医者」 🔁 毎日 09:00`: one reminder for people."""
    content = clip(view.content, LINE_CONTENT_CHARS, flatten=True)
    line = f"`#{view.id}` {view.when_text(now)} 「{content}」"
    return f"{line} 🔁 {view.repeat_text}" if view.repeat_text else line


def cancel_refusal(error: ReminderError, reminder_id: int) -> str:
    """Why a cancel did not happen, for the person (the exception's text is for the model)."""
    if isinstance(error, NotReminderOwner):
        return (
            f"#{reminder_id} は別の人のリマインドです。取り消せるのは頼んだ本人だけです。"
            f"(Reminder #{reminder_id} belongs to someone else; only they can cancel it.)"
        )
    if isinstance(error, ReminderNotFound):
        return (
            f"#{reminder_id} というリマインドはありません。"
            "`/remind list` で番号を確かめてください。"
            f"(There is no reminder #{reminder_id}; `/remind list` shows yours.)"
        )
    if isinstance(error, ReminderClosed):
        return (
            f"#{reminder_id} はもう届いたか、取り消し済みです。"
            f"(Reminder #{reminder_id} was already delivered or cancelled.)"
        )
    return (
        f"#{reminder_id} を取り消せませんでした。`/remind list` からもう一度お試しください。"
        f"(I could not cancel #{reminder_id}; please try again from `/remind list`.)"
    )


def _english_time(instant: datetime, tz: ZoneInfo) -> str:
    return f"{instant.astimezone(tz):%a %d %b %H:%M}"


class CancelSelect(discord.ui.Select["CancelView"]):
    """Choose reminders to cancel from the list."""

    def __init__(self, options: list[discord.SelectOption]) -> None:
        super().__init__(
            placeholder="取り消すリマインドを選ぶ / Choose reminders to cancel",
            min_values=1,
            max_values=len(options),
            options=options,
        )

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Cancel the chosen reminders (the service refuses anything not theirs)."""
        assert self.view is not None
        menu = self.view
        lines = []
        for value in self.values:
            reminder_id = int(value)
            try:
                view = await menu.service.cancel(reminder_id, interaction.user.id, menu.tz)
            except ReminderError as exc:
                lines.append(f"⚠️ {cancel_refusal(exc, reminder_id)}")
            else:
                lines.append(f"🗑️ 取り消しました / Cancelled: {reminder_line(view, menu.now())}")
        menu.stop()
        await interaction.response.edit_message(content="\n".join(lines), embed=None, view=None)


class CancelView(discord.ui.View):
    """The select menu under /remind list; only its owner can use it."""

    def __init__(
        self,
        service: ReminderService,
        user_id: int,
        tz: ZoneInfo,
        now: Callable[[], datetime],
        options: list[discord.SelectOption],
    ) -> None:
        super().__init__(timeout=600)
        self.service = service
        self.user_id = user_id
        self.tz = tz
        self.now = now
        self.add_item(CancelSelect(options))

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        """Only the person who listed their reminders can cancel from this menu."""
        return interaction.user.id == self.user_id


class ReminderCommands(commands.Cog):
    """Reminder and time-zone slash commands."""

    remind = app_commands.Group(name="remind", description="Reminders")
    timezone = app_commands.Group(name="timezone", description="Time zone")

    def __init__(
        self, service: ReminderService, preferences: UserPreferences, now: Callable[[], datetime]
    ) -> None:
        self.service = service
        self.preferences = preferences
        self.now = now

    @remind.command(name="list", description="Your pending reminders")
    async def list_reminders(self, interaction: discord.Interaction[Any]) -> None:
        """Show my pending reminders with a menu to cancel them."""
        tz = await self.preferences.timezone(interaction.user.id)
        views = await self.service.list_pending(interaction.user.id, tz)
        if not views:
            await interaction.response.send_message(
                "予定しているリマインドはありません。メンションして「明日9時に歯医者って"
                "リマインドして」のように頼んでください。/ You have no pending reminders; "
                'mention me with something like "remind me about the dentist at 9 tomorrow".',
                ephemeral=True,
            )
            return
        now = self.now()
        embed = discord.Embed(
            title=f"⏰ あなたのリマインド / Your reminders ({len(views)})",
            description="\n".join(reminder_line(v, now) for v in views),
            colour=LIST_COLOUR,
        )
        footer = f"{tz.key} ・ /timezone set で変更 / change with /timezone set"
        if len(views) >= MAX_LISTED:
            footer = f"近い順に{MAX_LISTED}件まで / the {MAX_LISTED} soonest ・ {footer}"
        embed.set_footer(text=footer)
        options = [
            discord.SelectOption(
                label=clip(f"#{v.id} {v.when_text(now)}", OPTION_CHARS, flatten=True),
                description=clip(v.content, OPTION_CHARS, flatten=True),
                value=str(v.id),
            )
            for v in views[:SELECT_LIMIT]
        ]
        await interaction.response.send_message(
            embed=embed,
            view=CancelView(self.service, interaction.user.id, tz, self.now, options),
            ephemeral=True,
        )

    @remind.command(name="cancel", description="Cancel a reminder")
    @app_commands.describe(reminder_id="The reminder's number (12 for #12)")
    async def cancel(self, interaction: discord.Interaction[Any], reminder_id: int) -> None:
        """Cancel one of my reminders by its number."""
        tz = await self.preferences.timezone(interaction.user.id)
        try:
            view = await self.service.cancel(reminder_id, interaction.user.id, tz)
        except ReminderError as exc:
            await interaction.response.send_message(
                f"⚠️ {cancel_refusal(exc, reminder_id)}", ephemeral=True
            )
            return
        await interaction.response.send_message(
            f"🗑️ 取り消しました / Cancelled: {reminder_line(view, self.now())}", ephemeral=True
        )

    @cancel.autocomplete("reminder_id")
    async def cancel_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        """Offer my pending reminders whose number or text contains what was typed."""
        tz = await self.preferences.timezone(interaction.user.id)
        views = await self.service.list_pending(interaction.user.id, tz)
        typed = current.strip().lstrip("#")
        now = self.now()
        return [
            app_commands.Choice(
                name=clip(f"#{v.id} {v.when_text(now)} {v.content}", OPTION_CHARS, flatten=True),
                value=v.id,
            )
            for v in views
            if typed in str(v.id) or typed.lower() in v.content.lower()
        ][:SELECT_LIMIT]

    @timezone.command(name="set", description="Set your time zone")
    @app_commands.describe(name="e.g. Asia/Tokyo, Europe/London, America/New_York")
    async def set_timezone(self, interaction: discord.Interaction[Any], name: str) -> None:
        """Set my time zone (IANA name) for reminders and dates."""
        try:
            zone = await self.preferences.set_timezone(interaction.user.id, name)
        except UnknownTimezone:
            shown = clip(name, 64, flatten=True)
            await interaction.response.send_message(
                f"⚠️ 「{shown}」というタイムゾーンは見つかりません。Asia/Tokyo のような名前を"
                "候補から選んでください。/ I don't know the time zone "
                f'"{shown}": pick a name such as Asia/Tokyo from the suggestions.',
                ephemeral=True,
            )
            return
        now = self.now()
        await interaction.response.send_message(
            f"🕒 タイムゾーンを **{zone.key}** にしました（いま {local_text(now, zone)}）。"
            "これから頼むリマインドの時刻はこのタイムゾーンで読みます。"
            f"/ Your time zone is now **{zone.key}** (local time {_english_time(now, zone)}); "
            "I'll read the times of new reminders in it.",
            ephemeral=True,
        )

    @set_timezone.autocomplete("name")
    async def timezone_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        """IANA names containing what was typed (`new york` finds America/New_York)."""
        return [app_commands.Choice(name=n, value=n) for n in timezone_names(current, SELECT_LIMIT)]

    @timezone.command(name="show", description="Show your time zone")
    async def show_timezone(self, interaction: discord.Interaction[Any]) -> None:
        """Show my time zone and the local time."""
        zone = await self.preferences.timezone(interaction.user.id)
        now = self.now()
        await interaction.response.send_message(
            f"🕒 あなたのタイムゾーンは **{zone.key}** です（いま {local_text(now, zone)}）。"
            f"/ Your time zone is **{zone.key}** (local time {_english_time(now, zone)}). "
            "`/timezone set` で変更できます / change it with `/timezone set`.",
            ephemeral=True,
        )
