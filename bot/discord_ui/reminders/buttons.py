"""Snooze / Done buttons under a delivered reminder (persistent: `rem:<id>:<action>`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import discord

from bot.discord_ui.buttons import IdActionButton, button_targets
from bot.discord_ui.failures import failures_told
from bot.members.preferences import UserPreferences
from bot.reminders.buttons import ButtonReply, ReminderButtons
from bot.reminders.times import localize

# "Tomorrow morning" is this local time.
MORNING = time(8, 0)
# Clicked before this local time, "tomorrow morning" is the coming morning, not the one after.
NIGHT_ENDS = time(4, 0)

SNOOZES = {"s10": timedelta(minutes=10), "s60": timedelta(hours=1)}

REMINDER_ACTIONS: dict[str, tuple[str, discord.ButtonStyle]] = {
    "s10": ("10分後 / 10 min", discord.ButtonStyle.secondary),
    "s60": ("1時間後 / 1 h", discord.ButtonStyle.secondary),
    "morning": ("明日の朝 / Tomorrow 8:00", discord.ButtonStyle.secondary),
    "done": ("完了 / Done", discord.ButtonStyle.success),
}

# A bot assembled without the reminders feature still recognises the buttons of old reminders.
NO_REMINDERS = "このボットではリマインダーを扱えません。(This bot does not handle reminders.)"


def next_morning(now: datetime, tz: ZoneInfo) -> datetime:
    """08:00 of the coming morning in the user's zone (tomorrow, or today in the small hours)."""
    local = now.astimezone(tz)
    day = local.date() if local.time() < NIGHT_ENDS else local.date() + timedelta(days=1)
    return localize(datetime.combine(day, MORNING), tz)


class ReminderButton(
    IdActionButton, template=r"rem:(?P<id>[0-9]{1,18}):(?P<action>s10|s60|morning|done)"
):
    """One of the buttons under a delivered reminder."""

    PREFIX = "rem"
    ACTIONS = REMINDER_ACTIONS

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Snooze or mark done; only the owner may (the service checks)."""
        targets = button_targets(interaction)
        actions = targets.reminder_actions
        if actions is None:
            await interaction.response.send_message(NO_REMINDERS, ephemeral=True)
            return
        async with failures_told(interaction, targets.database_health):
            await actions.on_click(interaction, self.item_id, self.action)


def reminder_view(reminder_id: int) -> discord.ui.View:
    """The buttons attached to a delivered reminder."""
    view = discord.ui.View(timeout=None)
    for action in REMINDER_ACTIONS:
        view.add_item(ReminderButton(reminder_id, action))
    return view


def _english_time(instant: datetime, tz: ZoneInfo) -> str:
    return f"{instant.astimezone(tz):%a %d %b %H:%M} ({tz.key})"


class ReminderActions:
    """Handles clicks on reminder buttons through the reminder service."""

    def __init__(
        self,
        buttons: ReminderButtons,
        preferences: UserPreferences,
        now: Callable[[], datetime],
    ) -> None:
        self.buttons = buttons
        self.preferences = preferences
        self.now = now

    async def on_click(
        self, interaction: discord.Interaction[Any], reminder_id: int, action: str
    ) -> None:
        """Apply the click; answer privately; on success mark the message and drop its buttons.

        A failure is answered by the button (see failures.failures_told)."""
        tz = await self.preferences.timezone(interaction.user.id)
        reply = await self._apply(reminder_id, interaction.user.id, action, tz)
        if not reply.ok or reply.reminder is None:
            # Someone else's reminder, or one that was cancelled or changed: say so privately.
            await interaction.response.send_message(reply.message, ephemeral=True)
            return
        view = reply.reminder
        if action == "done":
            status = "✅ 完了 / Done"
            english = "Marked as done."
            if view.repeat is not None and view.state == "pending":
                english += f" It repeats: next on {_english_time(view.due_at, tz)}."
        else:
            status = f"⏰ {view.when_text(self.now())} にもう一度 / snoozed"
            english = f"I'll remind you again on {_english_time(view.due_at, tz)}."
        # One edit: the buttons go (they did their job) and the card shows what happened.
        changes: dict[str, Any] = {"view": None}
        stamped = _stamped(interaction.message, status)
        if stamped is not None:
            changes["embed"] = stamped
        await interaction.response.edit_message(**changes)
        await interaction.followup.send(f"{reply.message}\n{english}", ephemeral=True)

    async def _apply(
        self, reminder_id: int, user_id: int, action: str, tz: ZoneInfo
    ) -> ButtonReply:
        if action == "done":
            return await self.buttons.done(reminder_id, user_id, tz)
        if action == "morning":
            return await self.buttons.snooze(reminder_id, user_id, next_morning(self.now(), tz), tz)
        return await self.buttons.snooze(reminder_id, user_id, SNOOZES[action], tz)


def _stamped(message: discord.Message | None, status: str) -> discord.Embed | None:
    """The reminder's embed with the outcome in its footer, or None when it has none."""
    if message is None or not message.embeds:
        return None
    embed = message.embeds[0].copy()
    footer = embed.footer.text or ""
    embed.set_footer(text=f"{footer} ・ {status}" if footer else status)
    return embed
