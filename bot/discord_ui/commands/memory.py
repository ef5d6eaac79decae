"""/otomo memory, /otomo forget and /otomo usage: what Otomo keeps, deleting it, model usage.

They join the `/otomo` group of the core commands. Every answer is ephemeral and pings nobody.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

import discord
from discord import app_commands
from discord.ext import commands

from bot.agent.conversation.memory import ConversationMemory, MemoryReport
from bot.agent.llm.usage import UsageReport
from bot.discord_ui.commands.confirmation import DeleteConfirmation
from bot.discord_ui.commands.private_replies import say
from bot.discord_ui.members import actor_of_interaction
from bot.i18n import Language, language_of_locale, replies
from bot.members.preferences import UserPreferences
from bot.text.clip import clip

if TYPE_CHECKING:
    from bot.discord_ui.client import OtomoBot

log = logging.getLogger(__name__)

CONFIRM_SECONDS = 120
SUMMARY_CHARS = 1200
USAGE_DEFAULT_DAYS = 7
USAGE_MAX_DAYS = 31
HERE = "here"
EVERYWHERE = "everywhere"

# The model's use per local day over the last days (the composition root binds the database).
UsageSource = Callable[[datetime, int, ZoneInfo], Awaitable[UsageReport]]


def _time(value: datetime | None, tz: tzinfo) -> str:
    return value.astimezone(tz).strftime("%Y-%m-%d %H:%M") if value else "—"


def describe_memory(
    report: MemoryReport, tz: tzinfo, retention_days: int, language: Language = "ja"
) -> str:
    """What is kept for a member in one channel, in their language."""
    elsewhere = (
        replies.MEMORY_ELSEWHERE(language, count=report.elsewhere) if report.elsewhere else ""
    )
    if not report.messages:
        return replies.MEMORY_NOTHING(language) + elsewhere
    kept = (
        replies.MEMORY_KEPT_DAYS(language, days=retention_days)
        if retention_days
        else replies.MEMORY_KEPT_FOREVER(language)
    )
    lines = [
        replies.MEMORY_TITLE(language),
        replies.MEMORY_MESSAGES(language, messages=report.messages, yours=report.their_messages),
        replies.MEMORY_SPAN(
            language, first=_time(report.first_at, tz), last=_time(report.last_at, tz)
        ),
        kept,
    ]
    if report.summary:
        quoted = "\n".join(f"> {line}" for line in clip(report.summary, SUMMARY_CHARS).splitlines())
        lines.append(
            f"{replies.MEMORY_SUMMARY(language, at=_time(report.summary_at, tz))}\n{quoted}"
        )
    else:
        lines.append(replies.MEMORY_NO_SUMMARY(language))
    lines.append(replies.MEMORY_DELETE(language))
    return "\n".join(lines) + elsewhere


def describe_usage(report: UsageReport, tz: tzinfo, language: Language = "ja") -> str:
    """A per-day table of calls, errors, tokens and latency, with the totals."""
    rows = [
        f"{'day':<10} {'calls':>5} {'err':>4} {'tok in':>8} {'tok out':>8} "
        f"{'avg s':>6} {'p95 s':>6}"
    ]
    for day in [*report.days, report.total]:
        label = "total" if day is report.total else day.day.strftime("%m-%d %a")
        rows.append(
            f"{label:<10} {day.calls:>5} {day.errors:>4} {day.tokens_in:>8} {day.tokens_out:>8} "
            f"{day.mean_ms / 1000:>6.2f} {day.p95_ms / 1000:>6.2f}"
        )
    purposes = ", ".join(f"{name} {count}" for name, count in report.total.purposes.most_common())
    zone = getattr(tz, "key", str(tz))
    title = replies.USAGE_TITLE(language, days=len(report.days), zone=zone)
    table = "```\n" + "\n".join(rows) + "\n```"
    return f"{title}\n{table}" + (
        replies.USAGE_PURPOSES(language, purposes=purposes) if purposes else ""
    )


class MemoryCommands(commands.Cog):
    """/otomo memory, forget and usage (added to the /otomo group when the cog loads)."""

    def __init__(
        self,
        bot: OtomoBot,
        memory: ConversationMemory,
        usage: UsageSource,
        preferences: UserPreferences,
        now: Callable[[], datetime],
        retention_days: int,
    ) -> None:
        self.bot = bot
        self.memory = memory
        self.usage_source = usage
        self.preferences = preferences
        self.now = now
        self.retention_days = retention_days

    async def cog_load(self) -> None:
        """Join the /otomo group that the core commands registered."""
        group = self.bot.tree.get_command("otomo")
        if not isinstance(group, app_commands.Group):
            raise RuntimeError("/otomo memory needs the core commands' /otomo group loaded first")
        memory: app_commands.Command[Any, ..., None] = app_commands.Command(
            name="memory",
            description="What I keep about you here",
            callback=self.show_memory,
        )
        forget: app_commands.Command[Any, ..., None] = app_commands.Command(
            name="forget",
            description="Delete your conversation history",
            callback=self.forget,
        )
        usage: app_commands.Command[Any, ..., None] = app_commands.Command(
            name="usage",
            description="Model usage per day (admins)",
            callback=self.usage,
        )
        for command in (memory, forget, usage):
            group.add_command(command)

    async def show_memory(self, interaction: discord.Interaction[Any]) -> None:
        """Show how many messages and which summary Otomo keeps for me in this channel."""
        report = await self.memory.report(interaction.user.id, interaction.channel_id or 0)
        tz = await self.preferences.timezone(interaction.user.id)
        language = language_of_locale(interaction.locale)
        await say(interaction, describe_memory(report, tz, self.retention_days, language))

    @app_commands.describe(scope="Where to forget")
    @app_commands.choices(
        scope=[
            app_commands.Choice(name="This channel", value=HERE),
            app_commands.Choice(name="Everywhere", value=EVERYWHERE),
        ]
    )
    async def forget(self, interaction: discord.Interaction[Any], scope: str = HERE) -> None:
        """Delete my history and summaries here or everywhere, after a confirmation."""
        everywhere = scope == EVERYWHERE
        language = language_of_locale(interaction.locale)
        user_id = interaction.user.id
        channel_id = None if everywhere else interaction.channel_id

        async def forget_history(_: discord.Interaction[Any]) -> str:
            report = await self.memory.forget(user_id, channel_id)
            await self.bot.approval_clicks.forgotten(report.cancelled)
            return replies.FORGOTTEN(
                language, messages=report.messages, conversations=report.conversations
            )

        confirmation = DeleteConfirmation(
            kind="forget",
            user_id=user_id,
            delete=forget_history,
            kept=replies.NOTHING_DELETED(language),
            language=language,
        )
        question = replies.FORGET_EVERYWHERE if everywhere else replies.FORGET_HERE
        await confirmation.ask(interaction, question(language))

    @app_commands.describe(days="How many days")
    async def usage(
        self,
        interaction: discord.Interaction[Any],
        days: app_commands.Range[int, 1, USAGE_MAX_DAYS] = USAGE_DEFAULT_DAYS,
    ) -> None:
        """Model calls, tokens, errors and latency per day (admins)."""
        if not self.bot.permissions.is_server_admin(actor_of_interaction(interaction)):
            await say(interaction, replies.USAGE_REFUSAL(language_of_locale(interaction.locale)))
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        tz = await self.preferences.timezone(interaction.user.id)
        report = await self.usage_source(self.now(), days, tz)
        await say(interaction, describe_usage(report, tz, language_of_locale(interaction.locale)))
