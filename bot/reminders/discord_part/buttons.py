"""Snooze / Done buttons under a delivered reminder (persistent: `rem:<id>:<action>`), and
Accept / Decline / Stop all under a request to remind another member (`rcs:<id>:<action>`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime, time, timedelta
from typing import Any, Protocol, cast
from zoneinfo import ZoneInfo

import discord

from bot.discord_ui.failures import failures_told
from bot.discord_ui.persistent_buttons import ButtonTargets, IdActionButton, button_targets
from bot.i18n import Language, Text, language_of_locale, posts, replies
from bot.members.preferences import UserPreferences
from bot.reminders.button_actions import ButtonReply, ReminderButtons, when_said
from bot.reminders.consent import ACCEPT, BLOCK, DECLINE, ConsentButtons
from bot.schedule.times import localize

# "Tomorrow morning" is this local time.
MORNING = time(8, 0)
# Clicked before this local time, "tomorrow morning" is the coming morning, not the one after.
NIGHT_ENDS = time(4, 0)

SNOOZES = {"s10": timedelta(minutes=10), "s60": timedelta(hours=1)}

# The labels, in the language of the reminder's post.
REMINDER_LABELS: dict[str, Text] = {
    "s10": replies.SNOOZE_10,
    "s60": replies.SNOOZE_60,
    "morning": replies.SNOOZE_MORNING,
    "done": replies.DONE,
}
REMINDER_ACTIONS: dict[str, tuple[Text, discord.ButtonStyle]] = {
    action: (
        label,
        discord.ButtonStyle.success if action == "done" else discord.ButtonStyle.secondary,
    )
    for action, label in REMINDER_LABELS.items()
}


CONSENT_LABELS: dict[str, Text] = {
    ACCEPT: replies.ACCEPT_LABEL,
    DECLINE: replies.DECLINE_LABEL,
    BLOCK: replies.BLOCK_LABEL,
}
CONSENT_ACTIONS: dict[str, tuple[Text, discord.ButtonStyle]] = {
    ACCEPT: (replies.ACCEPT_LABEL, discord.ButtonStyle.success),
    DECLINE: (
        replies.DECLINE_LABEL,
        discord.ButtonStyle.secondary,
    ),
    BLOCK: (replies.BLOCK_LABEL, discord.ButtonStyle.danger),
}


def next_morning(now: datetime, tz: ZoneInfo) -> datetime:
    """08:00 of the coming morning in the user's zone (tomorrow, or today in the small hours)."""
    local = now.astimezone(tz)
    day = local.date() if local.time() < NIGHT_ENDS else local.date() + timedelta(days=1)
    return localize(datetime.combine(day, MORNING), tz)


# The name the reminders' clicks are registered under (DiscordBuilder.add_buttons).
CLICKS = "reminders"


class ReminderClicks(Protocol):
    """Where the buttons under a delivered reminder send their clicks."""

    async def on_click(
        self, interaction: discord.Interaction[Any], reminder_id: int, action: str
    ) -> None:
        """Snooze / Done was clicked."""

    async def on_consent(
        self, interaction: discord.Interaction[Any], reminder_id: int, action: str
    ) -> None:
        """Accept / Decline / Stop all was clicked under a request to remind a member."""


def reminder_clicks(targets: ButtonTargets) -> ReminderClicks | None:
    """What the reminders' buttons reach on the client that received the click."""
    return cast("ReminderClicks | None", targets.feature_clicks.get(CLICKS))


async def _hand_over(
    interaction: discord.Interaction[Any], act: Callable[[ReminderClicks], Awaitable[None]]
) -> None:
    """Give a click to what the reminders' buttons reach, telling a database outage."""
    targets = button_targets(interaction)
    clicks = reminder_clicks(targets)
    if clicks is None:
        # A bot assembled without the reminders feature still knows old reminders' buttons.
        await interaction.response.send_message(
            replies.NO_REMINDERS(language_of_locale(interaction.locale)), ephemeral=True
        )
        return
    async with failures_told(interaction, targets.database_health):
        await act(clicks)


class ReminderButton(
    IdActionButton, template=r"rem:(?P<id>[0-9]{1,18}):(?P<action>s10|s60|morning|done)"
):
    """One of the buttons under a delivered reminder."""

    PREFIX = "rem"
    ACTIONS = REMINDER_ACTIONS

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Snooze or mark done; only the owner may (the service checks)."""
        await _hand_over(
            interaction, lambda clicks: clicks.on_click(interaction, self.item_id, self.action)
        )


class ConsentButton(
    IdActionButton, template=r"rcs:(?P<id>[0-9]{1,18}):(?P<action>accept|decline|block)"
):
    """One of the buttons under a request to remind another member."""

    PREFIX = "rcs"
    ACTIONS = CONSENT_ACTIONS

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Accept, decline or stop all; only the member it is for may (the service checks)."""
        await _hand_over(
            interaction, lambda clicks: clicks.on_consent(interaction, self.item_id, self.action)
        )


def consent_view(reminder_id: int, language: Language = "ja") -> discord.ui.View:
    """The buttons under a request to remind another member, in the request's language."""
    view = discord.ui.View(timeout=None)
    for action in CONSENT_LABELS:
        view.add_item(ConsentButton(reminder_id, action, language))
    return view


def reminder_view(reminder_id: int, language: Language = "ja") -> discord.ui.View:
    """The buttons attached to a delivered reminder, labelled in the post's language."""
    view = discord.ui.View(timeout=None)
    for action in REMINDER_LABELS:
        view.add_item(ReminderButton(reminder_id, action, language))
    return view


class ReminderActions:
    """Handles clicks on reminder buttons through the reminder service."""

    def __init__(
        self,
        buttons: ReminderButtons,
        preferences: UserPreferences,
        now: Callable[[], datetime],
        consent: ConsentButtons | None = None,
    ) -> None:
        self.buttons = buttons
        self.consent = consent
        self.preferences = preferences
        self.now = now

    async def on_click(
        self, interaction: discord.Interaction[Any], reminder_id: int, action: str
    ) -> None:
        """Apply the click; answer privately; on success mark the message and drop its buttons.

        A failure is answered by the button (see failures.failures_told)."""
        tz = await self.preferences.timezone(interaction.user.id)
        language = language_of_locale(interaction.locale)
        reply = await self._apply(reminder_id, interaction.user.id, action, tz, language)
        if not reply.ok or reply.reminder is None:
            # Someone else's reminder, or one that was cancelled or changed: say so privately.
            await interaction.response.send_message(reply.message, ephemeral=True)
            return
        view = reply.reminder
        # The stamp is on the post everyone sees: in the post's language, told by its title.
        post_language: Language = "ja" if _post_is_japanese(interaction.message) else "en"
        if action == "done":
            status = replies.STAMP_DONE(post_language)
        else:
            when = when_said(view, self.now(), post_language)
            status = replies.STAMP_SNOOZED(post_language, when=when)
        # One edit: the buttons go (they did their job) and the card shows what happened.
        changes: dict[str, Any] = {"view": None}
        stamped = _stamped(interaction.message, status)
        if stamped is not None:
            changes["embed"] = stamped
        await interaction.response.edit_message(**changes)
        await interaction.followup.send(reply.message, ephemeral=True)

    async def on_consent(
        self, interaction: discord.Interaction[Any], reminder_id: int, action: str
    ) -> None:
        """The member's answer to a request: refused privately for anyone else; on success the
        request loses its buttons and shows the answer to everyone (the asker included)."""
        language = language_of_locale(interaction.locale)
        if self.consent is None:
            await interaction.response.send_message(replies.NO_REMINDERS(language), ephemeral=True)
            return
        reply = await self.consent.click(reminder_id, interaction.user.id, action, language)
        if not reply.ok:
            await interaction.response.send_message(reply.message, ephemeral=True)
            return
        message = interaction.message
        content = message.content if message is not None else ""
        await interaction.response.edit_message(
            content=f"{content}\n-# {reply.stamp}",
            view=None,
            allowed_mentions=discord.AllowedMentions.none(),
        )
        await interaction.followup.send(reply.message, ephemeral=True)

    async def _apply(
        self, reminder_id: int, user_id: int, action: str, tz: ZoneInfo, language: Language
    ) -> ButtonReply:
        if action == "done":
            return await self.buttons.done(reminder_id, user_id, tz, language)
        until = next_morning(self.now(), tz) if action == "morning" else SNOOZES[action]
        return await self.buttons.snooze(reminder_id, user_id, until, tz, language)


def _post_is_japanese(message: discord.Message | None) -> bool:
    """Whether the reminder's post is in Japanese (its title says so)."""
    if message is None or not message.embeds:
        return True
    return message.embeds[0].title != posts.REMINDER_TITLE("en")


def _stamped(message: discord.Message | None, status: str) -> discord.Embed | None:
    """The reminder's embed with the outcome in its footer, or None when it has none."""
    if message is None or not message.embeds:
        return None
    embed = message.embeds[0].copy()
    footer = embed.footer.text or ""
    embed.set_footer(text=f"{footer} ・ {status}" if footer else status)
    return embed
