"""Snooze / Done buttons under a delivered reminder (persistent: `rem:<id>:<action>`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, time, timedelta
from typing import Any, Self
from zoneinfo import ZoneInfo

import discord

from bot.reminders.buttons import ButtonReply, ReminderButtons
from bot.users import UserPreferences

# Local time used by "tomorrow morning".
MORNING = time(8, 0)

ACTIONS: dict[str, tuple[str, discord.ButtonStyle]] = {
    "s10": ("10分後 / 10 min", discord.ButtonStyle.secondary),
    "s60": ("1時間後 / 1 h", discord.ButtonStyle.secondary),
    "morning": ("明日の朝 / Tomorrow 8:00", discord.ButtonStyle.secondary),
    "done": ("完了 / Done", discord.ButtonStyle.success),
}


def tomorrow_morning(now: datetime, tz: ZoneInfo) -> datetime:
    """08:00 tomorrow in the user's zone."""
    local = now.astimezone(tz)
    return datetime.combine(local.date() + timedelta(days=1), MORNING, tzinfo=tz)


class ReminderButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"rem:(?P<id>[0-9]{1,18}):(?P<action>s10|s60|morning|done)",
):
    """One of the buttons under a delivered reminder."""

    def __init__(self, reminder_id: int, action: str) -> None:
        label, style = ACTIONS[action]
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=f"rem:{reminder_id}:{action}")
        )
        self.reminder_id = reminder_id
        self.action = action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
        match: re.Match[str], /,
    ) -> Self:
        """Rebuild from the custom_id (also after a restart)."""
        return cls(int(match["id"]), match["action"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Snooze or mark done; only the owner may (the service checks)."""
        actions: ReminderActions = interaction.client.reminder_actions  # type: ignore[attr-defined]
        await actions.on_click(interaction, self.reminder_id, self.action)


def reminder_view(reminder_id: int) -> discord.ui.View:
    """The buttons attached to a delivered reminder."""
    view = discord.ui.View(timeout=None)
    for action in ACTIONS:
        view.add_item(ReminderButton(reminder_id, action))
    return view


class ReminderActions:
    """Handles clicks on reminder buttons through the reminder service."""

    def __init__(
        self, buttons: ReminderButtons, preferences: UserPreferences,
        now: Callable[[], datetime],
    ) -> None:
        self.buttons = buttons
        self.preferences = preferences
        self.now = now

    async def on_click(
        self, interaction: discord.Interaction[Any], reminder_id: int, action: str
    ) -> None:
        """Apply the click; answer privately; on success remove the buttons."""
        tz = await self.preferences.timezone(interaction.user.id)
        reply: ButtonReply
        if action == "done":
            reply = await self.buttons.done(reminder_id, interaction.user.id, tz)
        elif action == "morning":
            reply = await self.buttons.snooze(
                reminder_id, interaction.user.id, tomorrow_morning(self.now(), tz), tz
            )
        else:
            minutes = 10 if action == "s10" else 60
            reply = await self.buttons.snooze(
                reminder_id, interaction.user.id, timedelta(minutes=minutes), tz
            )
        if not reply.ok:
            await interaction.response.send_message(reply.message, ephemeral=True)
            return
        await interaction.response.edit_message(view=None)
        await interaction.followup.send(reply.message, ephemeral=True)
