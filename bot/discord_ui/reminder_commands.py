"""/remind list, /remind cancel, /timezone set and /timezone show (thin: they call services)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.reminders.errors import ReminderError
from bot.reminders.service import ReminderService
from bot.reminders.views import describe
from bot.users import UnknownTimezone, UserPreferences, timezone_names

# Discord allows at most 25 options in a select menu.
SELECT_LIMIT = 25


class CancelSelect(discord.ui.Select["CancelView"]):
    """Choose reminders to cancel from the list."""

    def __init__(self, options: list[discord.SelectOption]) -> None:
        super().__init__(
            placeholder="取り消すリマインドを選ぶ / Choose reminders to cancel",
            min_values=1, max_values=len(options), options=options,
        )

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Cancel the chosen reminders (the service refuses anything not theirs)."""
        assert self.view is not None
        lines = []
        for value in self.values:
            try:
                view = await self.view.service.cancel(int(value), interaction.user.id,
                                                      self.view.tz)
                lines.append(f"🗑️ {describe(view, self.view.tz)}")
            except ReminderError as exc:
                lines.append(f"⚠️ #{value}: {exc}")
        await interaction.response.edit_message(content="\n".join(lines), view=None)


class CancelView(discord.ui.View):
    """The select menu under /remind list; only its owner can use it."""

    def __init__(self, service: ReminderService, user_id: int, tz: Any,
                 options: list[discord.SelectOption]) -> None:
        super().__init__(timeout=600)
        self.service = service
        self.user_id = user_id
        self.tz = tz
        self.add_item(CancelSelect(options))

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        """Only the person who listed their reminders can cancel from this menu."""
        return interaction.user.id == self.user_id


class ReminderCommands(commands.Cog):
    """Reminder and time-zone slash commands."""

    remind = app_commands.Group(name="remind", description="リマインド / Reminders")
    timezone = app_commands.Group(name="timezone", description="タイムゾーン / Time zone")

    def __init__(self, service: ReminderService, preferences: UserPreferences,
                 now: Callable[[], datetime]) -> None:
        self.service = service
        self.preferences = preferences
        self.now = now

    @remind.command(name="list", description="自分のリマインド一覧 / Your pending reminders")
    async def list_reminders(self, interaction: discord.Interaction[Any]) -> None:
        """Show my pending reminders with a menu to cancel them."""
        tz = await self.preferences.timezone(interaction.user.id)
        views = await self.service.list_pending(interaction.user.id, tz)
        if not views:
            await interaction.response.send_message(
                "予定されているリマインドはありません。/ You have no pending reminders.",
                ephemeral=True,
            )
            return
        now = self.now()
        lines = [describe(v, tz, now) for v in views]
        options = [
            discord.SelectOption(label=describe(v, tz, now)[:100], value=str(v.id))
            for v in views[:SELECT_LIMIT]
        ]
        await interaction.response.send_message(
            f"**リマインド / Reminders** ({tz.key})\n" + "\n".join(lines)[:1800],
            view=CancelView(self.service, interaction.user.id, tz, options),
            ephemeral=True,
        )

    @remind.command(name="cancel", description="リマインドを取り消す / Cancel a reminder")
    @app_commands.describe(reminder_id="リマインドの番号 (#12 なら 12) / The reminder number")
    async def cancel(self, interaction: discord.Interaction[Any], reminder_id: int) -> None:
        """Cancel one of my reminders by its number."""
        tz = await self.preferences.timezone(interaction.user.id)
        try:
            view = await self.service.cancel(reminder_id, interaction.user.id, tz)
        except ReminderError as exc:
            await interaction.response.send_message(f"⚠️ {exc}", ephemeral=True)
            return
        await interaction.response.send_message(
            f"🗑️ 取り消しました / Cancelled: {describe(view, tz)}", ephemeral=True
        )

    @cancel.autocomplete("reminder_id")
    async def cancel_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        """Offer my pending reminders."""
        tz = await self.preferences.timezone(interaction.user.id)
        views = await self.service.list_pending(interaction.user.id, tz)
        return [
            app_commands.Choice(name=describe(v, tz)[:100], value=v.id)
            for v in views if current in str(v.id) or current in v.content
        ][:SELECT_LIMIT]

    @timezone.command(name="set", description="タイムゾーンを設定 / Set your time zone")
    @app_commands.describe(name="例: Asia/Tokyo, Europe/London, America/New_York")
    async def set_timezone(self, interaction: discord.Interaction[Any], name: str) -> None:
        """Set my time zone (IANA name) for reminders and dates."""
        try:
            zone = await self.preferences.set_timezone(interaction.user.id, name)
        except UnknownTimezone as exc:
            await interaction.response.send_message(f"⚠️ {exc}", ephemeral=True)
            return
        local = self.now().astimezone(zone)
        await interaction.response.send_message(
            f"🕒 タイムゾーンを **{zone.key}** にしました（現在 {local:%m/%d %H:%M}）。"
            f"/ Your time zone is now **{zone.key}** (local time {local:%H:%M}).",
            ephemeral=True,
        )

    @set_timezone.autocomplete("name")
    async def timezone_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        """IANA names containing what was typed."""
        return [app_commands.Choice(name=n, value=n) for n in timezone_names(current)]

    @timezone.command(name="show", description="今のタイムゾーン / Show your time zone")
    async def show_timezone(self, interaction: discord.Interaction[Any]) -> None:
        """Show my time zone and the local time."""
        zone = await self.preferences.timezone(interaction.user.id)
        local = self.now().astimezone(zone)
        await interaction.response.send_message(
            f"🕒 **{zone.key}**（現在 {local:%Y-%m-%d %H:%M}）/ local time {local:%H:%M}",
            ephemeral=True,
        )
