"""Each feature's Discord part (composition): its slash commands, buttons, message hooks, posts."""

from __future__ import annotations

import discord
from apscheduler.schedulers.base import BaseScheduler

from bot.app.services import Deps
from bot.chat import Tip, schedule_tips
from bot.chat.tips import TIPS_JOB_ID
from bot.discord_ui.builder import DiscordBuilder
from bot.discord_ui.commands.kb import KnowledgeCommands
from bot.discord_ui.commands.notes import NotesCommands
from bot.discord_ui.commands.reminders import ReminderCommands
from bot.discord_ui.posting import ChannelPoster
from bot.discord_ui.reminders.buttons import ReminderActions
from bot.i18n import Language
from bot.weather import DailyWeatherReport, schedule_daily_weather
from bot.weather.daily import DAILY_WEATHER_JOB_ID


def reminders(app: DiscordBuilder, deps: Deps) -> None:
    """/remind and /timezone, and the buttons under delivered reminders."""
    now = app.clock.now
    app.add_commands(lambda client: ReminderCommands(deps.reminders, app.preferences, now))
    app.answer_reminder_buttons(ReminderActions(deps.reminder_buttons, app.preferences, now))


def weather(app: DiscordBuilder, deps: Deps) -> None:
    """The daily forecast post (off until its channel and time are set)."""
    settings = app.settings
    channel = settings.weather_notify_channel_id

    def schedule(scheduler: BaseScheduler, poster: ChannelPoster) -> None:
        async def post(report: DailyWeatherReport) -> None:
            # Scheduled only when the channel is set (schedule_daily_weather checks).
            assert channel is not None
            await poster.post_weather(channel, report)

        async def language() -> Language:
            return await app.servers.post_language(poster.guild_of(channel) if channel else None)

        # Called even when unconfigured: it warns about a channel without a time, or the reverse.
        schedule_daily_weather(scheduler, post, settings, app.clock, deps.weather, language)

    app.add_scheduled_post(DAILY_WEATHER_JOB_ID, schedule)


def chat(app: DiscordBuilder, deps: Deps) -> None:
    """Server messages feed the word pool; the どうでもいいTips post when its channel is set."""

    def observe(message: discord.Message) -> None:
        # Only people in guild channels feed the word pool: DMs stay private.
        if message.guild is not None and not message.author.bot and message.content:
            deps.word_pool.feed(message.content, message.channel.id, message.guild.id)

    app.add_message_hook(observe)
    channel = app.settings.tips_channel_id
    if channel is None:
        return

    def schedule(scheduler: BaseScheduler, poster: ChannelPoster) -> None:
        async def post(tip: Tip) -> None:
            await poster.post_tip(channel, tip)

        async def language() -> Language:
            return await app.servers.post_language(poster.guild_of(channel))

        # The tip's topics and history are those of the channel's server.
        schedule_tips(
            scheduler, deps.tips, post, app.settings, lambda: poster.guild_of(channel), language
        )

    app.add_scheduled_post(TIPS_JOB_ID, schedule)


def knowledge(app: DiscordBuilder, deps: Deps) -> None:
    """/kb for knowledge-base admins."""
    app.add_commands(
        lambda client: KnowledgeCommands(deps.kb_editor, app.preferences, app.permissions)
    )


def notes(app: DiscordBuilder, deps: Deps) -> None:
    """/notes for the server notebook."""
    app.add_commands(lambda client: NotesCommands(deps.notebook, app.preferences, app.permissions))
