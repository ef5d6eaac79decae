"""/remind list, /remind cancel, /remind unblock, /timezone set and /timezone show (thin: they
call services)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import discord
from discord import app_commands
from discord.ext import commands

from bot.i18n import Language, Text, language_of_locale, replies
from bot.members.preferences import UnknownTimezone, UserPreferences, timezone_names
from bot.reminders.button_actions import when_said
from bot.reminders.consent import ReminderConsent
from bot.reminders.display import ReminderView
from bot.reminders.errors import (
    NotReminderOwner,
    ReminderClosed,
    ReminderError,
    ReminderNotFound,
)
from bot.reminders.service import MAX_LISTED, ReminderService
from bot.schedule.times import local_text
from bot.schedule.words import summary_en
from bot.text.clip import clip

# Discord allows at most 25 options in a select menu and 25 autocomplete choices.
SELECT_LIMIT = 25
# Select-option labels, descriptions and choice names are at most 100 characters.
OPTION_CHARS = 100
# How much of a reminder's text one line of the list shows.
LINE_CONTENT_CHARS = 60
LIST_COLOUR = discord.Colour.from_rgb(255, 170, 60)


def reminder_line(view: ReminderView, now: datetime, language: Language = "ja") -> str:
    """`#12 12月1日(火) 09:00 「歯医者」 🔁 毎日 09:00`: one reminder for people."""
    content = clip(view.content, LINE_CONTENT_CHARS, flatten=True)
    if language == "ja":
        line = f"`#{view.id}` {view.when_text(now)} 「{content}」"
        repeat = view.repeat_text
    else:
        line = f"`#{view.id}` {when_said(view, now, language)} “{content}”"
        repeat = summary_en(view.repeat) if view.repeat is not None else None
    return f"{line} 🔁 {repeat}" if repeat else line


_CANCEL_REFUSALS: dict[type[ReminderError], Text] = {
    NotReminderOwner: replies.NOT_YOUR_REMINDER,
    ReminderNotFound: replies.NO_SUCH_REMINDER,
    ReminderClosed: replies.REMINDER_ALREADY_CLOSED,
}


def cancel_refusal(error: ReminderError, reminder_id: int, language: Language = "ja") -> str:
    """Why a cancel did not happen, for the person (the exception's text is for the model)."""
    for kind, text in _CANCEL_REFUSALS.items():
        if isinstance(error, kind):
            return text(language, id=reminder_id)
    return replies.REMINDER_NOT_CANCELLED(language, id=reminder_id)


def _local_now(now: datetime, zone: ZoneInfo, language: Language) -> str:
    if language == "ja":
        return local_text(now, zone)
    return f"{now.astimezone(zone):%a %d %b %H:%M}"


class CancelSelect(discord.ui.Select["CancelView"]):
    """Choose reminders to cancel from the list."""

    def __init__(self, options: list[discord.SelectOption], language: Language) -> None:
        super().__init__(
            placeholder=replies.CHOOSE_REMINDERS(language),
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
                lines.append(f"⚠️ {cancel_refusal(exc, reminder_id, menu.language)}")
            else:
                line = reminder_line(view, menu.now(), menu.language)
                lines.append(replies.REMINDER_CANCELLED(menu.language, line=line))
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
        language: Language = "ja",
    ) -> None:
        super().__init__(timeout=600)
        self.service = service
        self.user_id = user_id
        self.tz = tz
        self.now = now
        self.language = language
        self.add_item(CancelSelect(options, language))

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        """Only the person who listed their reminders can cancel from this menu."""
        return interaction.user.id == self.user_id


class ReminderCommands(commands.Cog):
    """Reminder and time-zone slash commands."""

    remind = app_commands.Group(name="remind", description="Reminders")
    timezone = app_commands.Group(name="timezone", description="Time zone")

    def __init__(
        self,
        service: ReminderService,
        preferences: UserPreferences,
        now: Callable[[], datetime],
        consent: ReminderConsent | None = None,
    ) -> None:
        self.service = service
        self.preferences = preferences
        self.now = now
        self.consent = consent

    @remind.command(name="unblock", description="Take reminders from a member again")
    @app_commands.describe(member="Whose reminders to take again; leave empty to list them")
    async def unblock(
        self, interaction: discord.Interaction[Any], member: discord.Member | None = None
    ) -> None:
        """Take reminders from a member I stopped again, or list whom I stopped (this server)."""
        language = language_of_locale(interaction.locale)
        guild_id = interaction.guild_id
        if guild_id is None or self.consent is None:
            await interaction.response.send_message(
                replies.SERVER_ONLY_UNBLOCK(language), ephemeral=True
            )
            return
        user_id = interaction.user.id
        if member is None:
            blocked = await self.consent.blocked(guild_id, user_id)
            text = (
                replies.BLOCKED_LIST(language, members=", ".join(f"<@{b}>" for b in blocked))
                if blocked
                else replies.BLOCKED_NONE(language)
            )
        elif await self.consent.unblock(guild_id, user_id, member.id):
            text = replies.UNBLOCKED(language, member=member.mention)
        else:
            text = replies.NOT_BLOCKED(language, member=member.mention)
        await interaction.response.send_message(
            text, ephemeral=True, allowed_mentions=discord.AllowedMentions.none()
        )

    @remind.command(name="list", description="Your pending reminders")
    async def list_reminders(self, interaction: discord.Interaction[Any]) -> None:
        """Show my pending reminders with a menu to cancel them."""
        tz = await self.preferences.timezone(interaction.user.id)
        language = language_of_locale(interaction.locale)
        views = await self.service.list_pending(interaction.user.id, tz)
        if not views:
            await interaction.response.send_message(
                replies.NO_PENDING_REMINDERS(language), ephemeral=True
            )
            return
        now = self.now()
        embed = discord.Embed(
            title=replies.YOUR_REMINDERS(language, count=len(views)),
            description="\n".join(reminder_line(v, now, language) for v in views),
            colour=LIST_COLOUR,
        )
        footer = replies.REMINDERS_FOOTER(language, zone=tz.key)
        if len(views) >= MAX_LISTED:
            footer = replies.SOONEST_ONLY(language, count=MAX_LISTED) + footer
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
            view=CancelView(self.service, interaction.user.id, tz, self.now, options, language),
            ephemeral=True,
        )

    @remind.command(name="cancel", description="Cancel a reminder")
    @app_commands.describe(reminder_id="The reminder's number (12 for #12)")
    async def cancel(self, interaction: discord.Interaction[Any], reminder_id: int) -> None:
        """Cancel one of my reminders by its number."""
        tz = await self.preferences.timezone(interaction.user.id)
        language = language_of_locale(interaction.locale)
        try:
            view = await self.service.cancel(reminder_id, interaction.user.id, tz)
        except ReminderError as exc:
            await interaction.response.send_message(
                f"⚠️ {cancel_refusal(exc, reminder_id, language)}", ephemeral=True
            )
            return
        line = reminder_line(view, self.now(), language)
        await interaction.response.send_message(
            replies.REMINDER_CANCELLED(language, line=line), ephemeral=True
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
        language = language_of_locale(interaction.locale)
        try:
            zone = await self.preferences.set_timezone(interaction.user.id, name)
        except UnknownTimezone:
            shown = clip(name, 64, flatten=True)
            await interaction.response.send_message(
                replies.UNKNOWN_TIMEZONE(language, name=shown), ephemeral=True
            )
            return
        now = _local_now(self.now(), zone, language)
        await interaction.response.send_message(
            replies.TIMEZONE_SET(language, zone=zone.key, now=now), ephemeral=True
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
        language = language_of_locale(interaction.locale)
        now = _local_now(self.now(), zone, language)
        await interaction.response.send_message(
            replies.TIMEZONE_SHOWN(language, zone=zone.key, now=now), ephemeral=True
        )
