"""The reminders feature's message action: right-click a message → Apps → "Remind me about this",
a form asking when, then a reminder for the clicker that links to the message.

The member asked through a form of their own: the submit is their consent, so no approval card
follows. The time is read as in a mention (an ISO time directly, else one model call counted
against the server's and member's budgets).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any

import discord
from discord.ext import commands

from bot.agent.llm.client import LLMClient, Payer
from bot.agent.llm.provider import LLMFailure
from bot.discord_ui.answering.conversation import action_refusal
from bot.discord_ui.builder import DiscordBuilder
from bot.discord_ui.commands.private_replies import say
from bot.discord_ui.message_actions import MessageAction
from bot.i18n import Language, replies
from bot.i18n.commands import MESSAGE_ACTIONS
from bot.members.preferences import UserPreferences
from bot.reminders.about_message import (
    NOTE_CHARS,
    WHEN_CHARS,
    Complete,
    MessageAbout,
    MessageReminders,
)
from bot.reminders.button_actions import when_said
from bot.reminders.errors import (
    InvalidReminder,
    TimeInPast,
    TooFarAhead,
    TooManyReminders,
    UnreadableWhen,
)
from bot.reminders.service import ReminderService
from bot.servers.directory import ServerDirectory
from bot.settings import Settings
from bot.text.clip import clip

log = logging.getLogger(__name__)

REMIND_ABOUT = MESSAGE_ACTIONS[0].en
FORM_ID = "remind:form"
# A form left open longer than this is forgotten (its submit then fails on Discord's side).
FORM_SECONDS = 600
# What the refusals quote of the typed time.
TYPED_CHARS = 60
# The tool whose switch also switches this action: a server that turned reminders off.
CREATE_TOOL = "create_reminder"


def about(message: discord.Message) -> MessageAbout:
    """The message as plain data."""
    return MessageAbout(
        guild_id=message.guild.id if message.guild else None,
        channel_id=message.channel.id,
        message_id=message.id,
        text=message.content,
        file_names=tuple(a.filename for a in message.attachments),
    )


def model_complete(llm: LLMClient) -> Complete:
    """One model call for the member, counted against their server's and their own budgets."""

    async def complete(system: str, user: str, guild_id: int | None, user_id: int) -> str:
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        return await llm.complete(
            messages, purpose="remind_time", payer=Payer(guild_id=guild_id, user_id=user_id)
        )

    return complete


class RemindForm(discord.ui.Modal):
    """When to be reminded, and an optional note."""

    def __init__(self, action: RemindAboutMessage, message: MessageAbout, language: Language):
        super().__init__(
            title=replies.REMIND_FORM_TITLE(language), timeout=FORM_SECONDS, custom_id=FORM_ID
        )
        self.action = action
        self.message = message
        self.language: Language = language
        self.when: discord.ui.TextInput[RemindForm] = discord.ui.TextInput(
            label=replies.REMIND_FORM_WHEN(language),
            placeholder=replies.REMIND_FORM_WHEN_HINT(language),
            custom_id="when",
            max_length=WHEN_CHARS,
        )
        self.note: discord.ui.TextInput[RemindForm] = discord.ui.TextInput(
            label=replies.REMIND_FORM_NOTE(language),
            custom_id="note",
            required=False,
            max_length=NOTE_CHARS,
        )
        self.add_item(self.when)
        self.add_item(self.note)

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        """Set the reminder and say when it comes, or why not."""
        await self.action.submit(
            interaction, self.message, self.when.value, self.note.value, self.language
        )


class RemindAboutMessage(commands.Cog):
    """The "Remind me about this" message command."""

    def __init__(
        self,
        client: discord.Client,
        reminders: MessageReminders,
        preferences: UserPreferences,
        settings: Settings,
        servers: ServerDirectory | None,
        now: Callable[[], datetime],
    ) -> None:
        self._client = client
        self._reminders = reminders
        self._preferences = preferences
        self._settings = settings
        self._servers = servers
        self._now = now
        # Only in servers: a reminder is posted in the message's channel, mentioning the clicker.
        self.action = MessageAction(
            client,
            REMIND_ABOUT,
            self.refusal,
            lambda message, language: RemindForm(self, about(message), language),
        )

    async def cog_load(self) -> None:
        """Add the message command to the tree."""
        self.action.add()

    async def cog_unload(self) -> None:
        """Take the message command out of the tree."""
        self.action.remove()

    def refusal(self, interaction: discord.Interaction[Any], language: Language) -> str | None:
        """Why the clicker may not use the action here, or None."""
        refused = action_refusal(self._servers, interaction, language)
        if refused is not None or self._servers is None or interaction.guild_id is None:
            return refused
        # A server that switched reminders off has switched this action off too.
        if not self._servers.config(interaction.guild_id).tool_enabled(CREATE_TOOL):
            return replies.ACTION_TOOL_OFF(language)
        return None

    async def submit(
        self,
        interaction: discord.Interaction[Any],
        message: MessageAbout,
        when: str,
        note: str,
        language: Language,
    ) -> None:
        """Create the reminder; every refusal is a private sentence."""
        # Reading the time may take a model call: acknowledge within Discord's 3 s first.
        await interaction.response.defer(ephemeral=True, thinking=True)
        if not await self._still_there(message):
            await say(interaction, replies.ACTION_MESSAGE_GONE(language))
            return
        typed = clip(when.strip(), TYPED_CHARS, flatten=True)
        tz = await self._preferences.timezone(interaction.user.id)
        try:
            view = await self._reminders.create(
                user_id=interaction.user.id,
                user_name=interaction.user.display_name,
                message=message,
                when=when,
                note=note,
                tz=tz,
                language=language,
            )
        except LLMFailure as failure:
            await say(interaction, failure.in_language(language))
            return
        except InvalidReminder as exc:
            await say(interaction, self._refused(exc, typed, language))
            return
        said = when_said(view, self._now(), language)
        done = replies.REMIND_SET(language, when=said, link=message.link, id=view.id)
        await say(interaction, done)

    def _refused(self, error: InvalidReminder, typed: str, language: Language) -> str:
        """The member's sentence for a refused reminder (the error's text is the model's)."""
        if isinstance(error, UnreadableWhen):
            return replies.REMIND_TIME_UNREADABLE(language, typed=typed)
        if isinstance(error, TimeInPast):
            return replies.REMIND_TIME_PAST(language, typed=typed)
        if isinstance(error, TooFarAhead):
            return replies.REMIND_TIME_TOO_FAR(
                language, days=self._settings.reminder_max_ahead_days
            )
        if isinstance(error, TooManyReminders):
            return replies.REMIND_TOO_MANY(language, limit=self._settings.reminder_max_per_user)
        return replies.REMIND_NOT_SET(language)

    async def _still_there(self, message: MessageAbout) -> bool:
        """Whether the message still exists (it may be deleted while the form was open)."""
        channel = self._client.get_partial_messageable(message.channel_id)
        try:
            await channel.fetch_message(message.message_id)
        except (discord.NotFound, discord.Forbidden):
            return False
        except discord.HTTPException as exc:
            # Discord is unsure; the reminder still links to the message, so go on.
            log.info("Could not check message %s: %s", message.message_id, exc.status)
        return True


def add_message_action(app: DiscordBuilder, reminders: ReminderService) -> None:
    """Add "Remind me about this" to the client."""
    agent = app.agent
    if agent is None:
        return
    made = MessageReminders(reminders, model_complete(agent.llm), app.clock)
    app.add_commands(
        lambda client: RemindAboutMessage(
            client, made, app.preferences, app.settings, app.servers, app.clock.now
        )
    )
