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
from bot.i18n import Language, language_of_locale, moment, replies
from bot.members.preferences import UserPreferences
from bot.servers.budgets import Budgets, BudgetUse
from bot.servers.costs import money
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

# The model's use per local day over the last days, of one server or (None) the whole bot (the
# composition root binds the database).
UsageSource = Callable[[datetime, int, ZoneInfo, int | None], Awaitable[UsageReport]]
SERVER_SCOPE = "server"
BOT_SCOPE = "bot"


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


def describe_budgets(use: BudgetUse, language: Language = "ja") -> str:
    """Today's tokens against the server's and the member's budgets."""

    def line(label: str, used: int, limit: int) -> str:
        left = BudgetUse.left(limit, used)
        if left is None:
            return replies.BUDGET_UNLIMITED(language, label=label, used=f"{used:,}")
        return replies.BUDGET_LEFT(
            language, label=label, used=f"{used:,}", limit=f"{limit:,}", left=f"{left:,}"
        )

    reset = moment(use.resets_at, "t")
    if use.server_cost_limit:
        left = max(0.0, use.server_cost_limit - use.server_cost)
        cost = replies.BUDGET_COST_LEFT(
            language,
            used=money(use.server_cost),
            limit=money(use.server_cost_limit),
            left=money(left),
        )
    else:
        cost = replies.BUDGET_COST_UNLIMITED(language, used=money(use.server_cost))
    lines = [
        replies.BUDGET_TITLE(language, reset=reset),
        line(replies.BUDGET_SERVER(language), use.server_used, use.server_limit),
        line(replies.BUDGET_MEMBER(language), use.member_used, use.member_limit),
        replies.BUDGET_COST_TITLE(language),
        cost,
    ]
    if use.unpriced_models:
        models = ", ".join(f"`{m}`" for m in use.unpriced_models)
        lines.append(replies.UNPRICED_MODELS(language, models=models))
    return "\n".join(lines)


def describe_usage(
    report: UsageReport, tz: tzinfo, whole_bot: bool = True, language: Language = "ja"
) -> str:
    """The per-day table of calls, errors, tokens and latency, with the totals."""
    purposes = ", ".join(f"{name} {count}" for name, count in report.total.purposes.most_common())
    zone = getattr(tz, "key", str(tz))
    title = (replies.USAGE_TITLE if whole_bot else replies.USAGE_TITLE_SERVER)(
        language, days=len(report.days), zone=zone
    )
    table = "```\n" + report.table() + "\n```"
    text = f"{title}\n{table}"
    if report.models:
        text += f"\n{replies.USAGE_MODELS(language)}\n```\n{report.model_table()}\n```"
    if report.unpriced_models:
        models = ", ".join(f"`{m}`" for m in report.unpriced_models)
        text += "\n" + replies.UNPRICED_MODELS(language, models=models)
    return text + (replies.USAGE_PURPOSES(language, purposes=purposes) if purposes else "")


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
        budgets: Budgets | None = None,
    ) -> None:
        self.bot = bot
        self.budgets = budgets
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

    @app_commands.describe(days="How many days", scope="This server or the whole bot")
    @app_commands.choices(
        scope=[
            app_commands.Choice(name="This server", value=SERVER_SCOPE),
            app_commands.Choice(name="Whole bot (owners)", value=BOT_SCOPE),
        ]
    )
    async def usage(
        self,
        interaction: discord.Interaction[Any],
        days: app_commands.Range[int, 1, USAGE_MAX_DAYS] = USAGE_DEFAULT_DAYS,
        scope: str = SERVER_SCOPE,
    ) -> None:
        """Model calls, tokens, errors and latency per day: this server's (admins), or the
        whole bot's (the bot's owners)."""
        language = language_of_locale(interaction.locale)
        actor = actor_of_interaction(interaction)
        whole_bot = scope == BOT_SCOPE or interaction.guild_id is None
        if whole_bot and not self.bot.permissions.is_bot_owner(actor):
            await say(interaction, replies.USAGE_OWNERS_ONLY(language))
            return
        if not whole_bot and not self.bot.permissions.is_server_admin(actor):
            await say(interaction, replies.USAGE_REFUSAL(language))
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        tz = await self.preferences.timezone(interaction.user.id)
        guild_id = None if whole_bot else interaction.guild_id
        report = await self.usage_source(self.now(), days, tz, guild_id)
        text = describe_usage(report, tz, whole_bot, language)
        if guild_id is not None and self.budgets is not None:
            use = await self.budgets.use(guild_id, interaction.user.id)
            text += "\n" + describe_budgets(use, language)
        await say(interaction, text)
