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
from bot.members.preferences import UserPreferences
from bot.servers.budgets import Budgets, BudgetUse
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

USAGE_REFUSAL = (
    "利用状況を見られるのは「サーバー管理」権限を持つ管理者だけです。/ Only admins (Manage "
    "Server) can see the usage."
)

# The model's use per local day over the last days, of one server or (None) the whole bot (the
# composition root binds the database).
UsageSource = Callable[[datetime, int, ZoneInfo, int | None], Awaitable[UsageReport]]
SERVER_SCOPE = "server"
BOT_SCOPE = "bot"
OWNERS_ONLY = (
    "ボット全体の利用状況を見られるのはボットのオーナーだけです。/ Only the bot's owners can "
    "see the whole bot's usage."
)


def _time(value: datetime | None, tz: tzinfo) -> str:
    return value.astimezone(tz).strftime("%Y-%m-%d %H:%M") if value else "—"


def describe_memory(report: MemoryReport, tz: tzinfo, retention_days: int) -> str:
    """What is kept for a member in one channel, in both languages."""
    elsewhere = (
        f"\n他の {report.elsewhere} か所（チャンネル・DM）にも会話があります。/ I also keep "
        f"conversations with you in {report.elsewhere} other channel(s) or DMs "
        "(`/otomo forget scope:Everywhere`)."
        if report.elsewhere
        else ""
    )
    if not report.messages:
        return (
            "このチャンネルでは、あなたとの会話を何も覚えていません。/ I keep nothing of our "
            "conversation in this channel." + elsewhere
        )
    kept = f"{retention_days} 日 / days" if retention_days else "無期限 / until you delete it"
    lines = [
        "🧠 **このチャンネルで覚えていること / What I keep for you here**",
        f"メッセージ / messages: **{report.messages}**（あなたの発言 / yours: "
        f"{report.their_messages}）",
        f"期間 / from–to: {_time(report.first_at, tz)} → {_time(report.last_at, tz)}",
        f"保存期間 / kept for: {kept}",
    ]
    if report.summary:
        quoted = "\n".join(f"> {line}" for line in clip(report.summary, SUMMARY_CHARS).splitlines())
        lines.append(f"要約 / summary ({_time(report.summary_at, tz)}):\n{quoted}")
    else:
        lines.append("要約 / summary: まだありません / none yet")
    lines.append("削除 / delete: `/otomo forget`")
    return "\n".join(lines) + elsewhere


def describe_budgets(use: BudgetUse) -> str:
    """Today's tokens against the server's and the member's budgets."""

    def line(label: str, used: int, limit: int) -> str:
        left = BudgetUse.left(limit, used)
        if left is None:
            return f"{label}: {used:,} / 無制限 unlimited"
        return f"{label}: {used:,} / {limit:,}（残り left {left:,}）"

    reset = f"<t:{int(use.resets_at.timestamp())}:t>"
    return "\n".join(
        (
            f"🪙 **今日のトークン / Tokens today** (リセット / resets {reset})",
            line("サーバー / server", use.server_used, use.server_limit),
            line("あなた / you", use.member_used, use.member_limit),
        )
    )


def describe_usage(report: UsageReport, tz: tzinfo, whole_bot: bool = True) -> str:
    """The per-day table of calls, errors, tokens and latency, with the totals."""
    purposes = ", ".join(f"{name} {count}" for name, count in report.total.purposes.most_common())
    zone = getattr(tz, "key", str(tz))
    title = (
        "モデルの利用状況（ボット全体）/ Model usage (whole bot)"
        if whole_bot
        else "モデルの利用状況（このサーバー）/ Model usage (this server)"
    )
    return (
        f"📊 **{title}** — {len(report.days)} 日 / "
        f"days ({zone})\n"
        "```\n" + report.table() + "\n```" + (f"\n用途 / purposes: {purposes}" if purposes else "")
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
            description="このチャンネルで覚えていること / What I keep about you here",
            callback=self.show_memory,
        )
        forget: app_commands.Command[Any, ..., None] = app_commands.Command(
            name="forget",
            description="会話の記憶を削除 / Delete your conversation history",
            callback=self.forget,
        )
        usage: app_commands.Command[Any, ..., None] = app_commands.Command(
            name="usage",
            description="モデルの利用状況（管理者）/ Model usage per day (admins)",
            callback=self.usage,
        )
        for command in (memory, forget, usage):
            group.add_command(command)

    async def show_memory(self, interaction: discord.Interaction[Any]) -> None:
        """Show how many messages and which summary Otomo keeps for me in this channel."""
        report = await self.memory.report(interaction.user.id, interaction.channel_id or 0)
        tz = await self.preferences.timezone(interaction.user.id)
        await say(interaction, describe_memory(report, tz, self.retention_days))

    @app_commands.describe(scope="どこの記憶を消すか / Where to forget")
    @app_commands.choices(
        scope=[
            app_commands.Choice(name="このチャンネル / This channel", value=HERE),
            app_commands.Choice(name="すべてのチャンネルとDM / Everywhere", value=EVERYWHERE),
        ]
    )
    async def forget(self, interaction: discord.Interaction[Any], scope: str = HERE) -> None:
        """Delete my history and summaries here or everywhere, after a confirmation."""
        everywhere = scope == EVERYWHERE
        where = (
            "すべてのチャンネルとDMでの / everywhere (every channel and DM)"
            if everywhere
            else "このチャンネルでの / in this channel"
        )
        user_id = interaction.user.id
        channel_id = None if everywhere else interaction.channel_id

        async def forget_history(_: discord.Interaction[Any]) -> str:
            report = await self.memory.forget(user_id, channel_id)
            await self.bot.approval_clicks.forgotten(report.cancelled)
            return (
                f"🧹 削除しました: メッセージ {report.messages} 件（会話 {report.conversations} "
                f"件）。/ Deleted {report.messages} messages from {report.conversations} "
                "conversation(s); I start afresh."
            )

        confirmation = DeleteConfirmation(
            kind="forget",
            user_id=user_id,
            delete=forget_history,
            kept="削除をやめました。/ Cancelled: nothing was deleted.",
        )
        await confirmation.ask(
            interaction,
            f"🧹 {where} 会話の履歴と要約を削除しますか？元に戻せません。/ Delete our conversation "
            "history and summaries? This cannot be undone.",
        )

    @app_commands.describe(
        days="日数 / How many days", scope="このサーバーかボット全体か / This server or the bot"
    )
    @app_commands.choices(
        scope=[
            app_commands.Choice(name="このサーバー / This server", value=SERVER_SCOPE),
            app_commands.Choice(name="ボット全体（オーナー）/ Whole bot (owners)", value=BOT_SCOPE),
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
        actor = actor_of_interaction(interaction)
        whole_bot = scope == BOT_SCOPE or interaction.guild_id is None
        if whole_bot and not self.bot.permissions.is_bot_owner(actor):
            await say(interaction, OWNERS_ONLY)
            return
        if not whole_bot and not self.bot.permissions.is_server_admin(actor):
            await say(interaction, USAGE_REFUSAL)
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        tz = await self.preferences.timezone(interaction.user.id)
        guild_id = None if whole_bot else interaction.guild_id
        report = await self.usage_source(self.now(), days, tz, guild_id)
        text = describe_usage(report, tz, whole_bot)
        if guild_id is not None and self.budgets is not None:
            use = await self.budgets.use(guild_id, interaction.user.id)
            text += "\n" + describe_budgets(use)
        await say(interaction, text)
