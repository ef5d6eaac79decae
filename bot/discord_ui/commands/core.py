"""Core slash commands: /otomo help, /tools allowed and /tools list (thin: they call services)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.agent.approvals.service import ApprovalService
from bot.agent.llm.models import ModelChoice
from bot.discord_ui.commands.tools_list import show_tools
from bot.discord_ui.sends import only
from bot.extools import ExternalToolsRuntime
from bot.i18n import Language, answers, language_of_locale, replies

if TYPE_CHECKING:
    from bot.discord_ui.client import OtomoBot

HELP_JA = """**Otomo（お供）でできること**
メンションして話しかけてください（例: `@Otomo 明日の9時に歯医者ってリマインドして`）。
• ⏰ **リマインド**: 「〜時に教えて」「覚えといて」で登録。`/remind list` で一覧。
• ☀️ **天気**: 「明日洗濯できる？」「傘いる？」で予報と洗濯アドバイス。
• 💬 **雑談**: 「暇だなー」など。ときどき どうでもいいTips も。
• 📚 **サーバーの知識**: ルールやFAQに出典付きで答えます。
• 📎 **返信・ファイル・画像**: メッセージに返信しながらメンションすると、その内容も読みます。
  テキストファイル（.txt .md .py .csv …）と画像（対応モデルのみ）も読めます。
• 📝 **メモ帳**: 「これメモしといて」でサーバーの共有メモに保存。`/notes list` で一覧・検索。
• 🖱️ **メッセージを右クリック → アプリ**: 「このメッセージをリマインド」で時刻を入れてリマインド、
  「Otomo に聞く」でそのメッセージについて自分にだけ答えます（「チャンネルに公開」もできます）。
• 🔐 実行前に確認が必要な操作はボタンで **承認 / 却下 / 常に許可** できます。
  常に許可した操作は `/tools allowed` で確認・取り消しできます。
• ⏹️ 回答中は **停止** ボタンで止められます。
• 🧠 `/otomo memory` で覚えている会話を確認、`/otomo forget` で削除できます。
• 🧵 `/otomo thread` でスレッドを作ると、その中ではメンションなしで話しかけられます。
• 📰 `/otomo catchup` で、このチャンネルで見逃した話題を自分だけにまとめて見られます。
"""

HELP_EN = """**What Otomo can do**
Mention me with a request (e.g. `@Otomo remind me about the dentist tomorrow at 9`).
• ⏰ **Reminders**: "remind me at 9", "don't let me forget". `/remind list` shows yours.
• ☀️ **Weather**: "do I need an umbrella tomorrow?", laundry advice included.
• 💬 **Chit-chat**: "I'm bored" — sometimes with a useless-but-fun tip.
• 📚 **Server knowledge**: rules and FAQ answers with their source.
• 📎 **Replies, files, images**: mention me in a reply and I read that message too; text
  files (.txt .md .py .csv …) and images (with a model that sees images) as well.
• 📝 **Notebook**: "note this down" saves a shared server note. `/notes list` lists and searches.
• 🖱️ **Right-click a message → Apps**: "Remind me about this" asks when, then reminds you;
  "Ask Otomo about this" answers you privately about it (with a button to post it publicly).
• 🔐 Actions with side effects wait for your **Approve / Reject / Always allow**.
  Review or revoke your always-allow grants with `/tools allowed`.
• ⏹️ Press **Stop** to interrupt an answer.
• 🧠 `/otomo memory` shows what I keep of our conversation; `/otomo forget` deletes it.
• 🧵 `/otomo thread` opens a thread where you talk with me without mentioning me.
• 📰 `/otomo catchup` sums up, privately, what you missed in this channel.
"""

WEB_SEARCH_OFF_JA = (
    "• 🔎 Web検索は無効です。管理者が `.env` に `TAVILY_API_KEY` を設定すると使えます。"
)
WEB_SEARCH_OFF_EN = (
    "• 🔎 Web search is off: an admin can enable it by setting `TAVILY_API_KEY` in `.env`."
)
WEB_SEARCH_ON_JA = "• 🔎 **Web検索**: 承認すると検索し、結果はナレッジベースに保存されます。"
WEB_SEARCH_ON_EN = (
    "• 🔎 **Web search**: after your approval; results are saved to the knowledge base."
)


def is_japanese(locale: discord.Locale | None) -> bool:
    """Whether to answer in Japanese for this interaction's locale."""
    return locale is None or locale == discord.Locale.japanese


def model_line(japanese: bool, model: str, sees_images: bool) -> str:
    """Which model answers here, whether it sees images, and how admins switch it."""
    if japanese:
        eyes = "画像も読めます" if sees_images else "画像は読めません"
        return f"\n• 🧠 **モデル**: `{model}`（{eyes}）。管理者は `/model` で切り替えられます。"
    eyes = "sees images" if sees_images else "cannot see images"
    return f"\n• 🧠 **Model**: `{model}` ({eyes}). Admins switch it with `/model`."


def help_text(japanese: bool, web_search: bool, model: str = "", sees_images: bool = False) -> str:
    """The help message in one language, with the web-search and model lines that apply."""
    tail = model_line(japanese, model, sees_images) if model else ""
    if japanese:
        return HELP_JA + (WEB_SEARCH_ON_JA if web_search else WEB_SEARCH_OFF_JA) + tail
    return HELP_EN + (WEB_SEARCH_ON_EN if web_search else WEB_SEARCH_OFF_EN) + tail


class RevokeSelect(discord.ui.Select["GrantsView"]):
    """Pick always-allow grants to withdraw."""

    def __init__(
        self,
        approvals: ApprovalService,
        user_id: int,
        guild_id: int | None,
        names: list[str],
        language: Language,
    ) -> None:
        super().__init__(
            placeholder=replies.CHOOSE_GRANTS(language),
            min_values=1,
            max_values=len(names),
            options=[discord.SelectOption(label=name, value=name) for name in names[:25]],
        )
        self.approvals = approvals
        self.user_id = user_id
        self.guild_id = guild_id
        self.language = language

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Revoke what was chosen and say so."""
        for name in self.values:
            await self.approvals.revoke(self.user_id, name, guild_id=self.guild_id)
        await interaction.response.edit_message(
            content=replies.REVOKED(self.language, names=", ".join(f"`{n}`" for n in self.values)),
            view=None,
        )


class GrantsView(discord.ui.View):
    """An ephemeral view listing the caller's grants; only they can use it."""

    def __init__(
        self,
        approvals: ApprovalService,
        user_id: int,
        guild_id: int | None,
        names: list[str],
        language: Language,
    ) -> None:
        super().__init__(timeout=300)
        self.user_id = user_id
        self.add_item(RevokeSelect(approvals, user_id, guild_id, names, language))

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        """Only the person who ran the command may revoke."""
        return interaction.user.id == self.user_id


class CoreCommands(commands.Cog):
    """/otomo help and /tools allowed."""

    otomo = app_commands.Group(name="otomo", description="About Otomo")
    tools = app_commands.Group(name="tools", description="Tool permissions")

    def __init__(
        self,
        bot: OtomoBot,
        approvals: ApprovalService,
        web_search: bool,
        extools: ExternalToolsRuntime | None = None,
        models: ModelChoice | None = None,
        sees_images: Callable[[str], bool] = lambda _: False,
    ) -> None:
        self.bot = bot
        self.approvals = approvals
        self.web_search = web_search
        self.extools = extools
        self.models = models
        self.sees_images = sees_images

    @otomo.command(name="help", description="What Otomo can do")
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        """Show what the bot can do, in the user's language, and which model answers here."""
        model = await self.models.current(interaction.guild_id) if self.models else ""
        await interaction.response.send_message(
            help_text(
                is_japanese(interaction.locale),
                self.web_search,
                model,
                self.sees_images(model) if model else False,
            ),
            ephemeral=True,
        )

    @otomo.command(name="thread", description="Open a thread for a conversation with Otomo")
    @app_commands.describe(name="The thread's name")
    async def thread(self, interaction: discord.Interaction[Any], name: str | None = None) -> None:
        """Open a thread where everyone talks with Otomo without mentioning it."""
        language = language_of_locale(interaction.locale)
        channel = interaction.channel
        if not isinstance(channel, discord.TextChannel):
            await interaction.response.send_message(
                answers.THREAD_NOT_HERE(language), ephemeral=True
            )
            return
        # Opening a thread and greeting in it can take longer than Discord's 3 s.
        await interaction.response.defer(ephemeral=True, thinking=True)
        title = (name or "").strip() or answers.THREAD_NAME(
            language, name=interaction.user.display_name
        )
        thread = await self.bot.staff.threads.open_in(channel, title, interaction.user.id)
        if thread is None:
            await interaction.followup.send(answers.THREAD_REFUSED(language), ephemeral=True)
            return
        await thread.send(
            f"{interaction.user.mention} {answers.THREAD_GREETING(language)}",
            allowed_mentions=only(interaction.user.id),
        )
        await interaction.followup.send(
            answers.THREAD_OPENED(language, thread=thread.mention), ephemeral=True
        )

    @tools.command(name="allowed", description="Your always-allow grants")
    async def allowed(self, interaction: discord.Interaction[Any]) -> None:
        """List my always-allow grants in this server (or DMs), with a menu to revoke them."""
        grants = await self.approvals.grants(interaction.user.id, guild_id=interaction.guild_id)
        japanese = is_japanese(interaction.locale)
        if not grants:
            await interaction.response.send_message(
                "常に許可している操作はありません。"
                if japanese
                else "You have no always-allow grants.",
                ephemeral=True,
            )
            return
        names = list(dict.fromkeys(g.tool_name for g in grants))
        lines = "\n".join(f"• `{name}`" for name in names)
        header = "常に許可している操作:" if japanese else "Tools you always allow:"
        await interaction.response.send_message(
            f"{header}\n{lines}",
            view=GrantsView(
                self.approvals,
                interaction.user.id,
                interaction.guild_id,
                names,
                language_of_locale(interaction.locale),
            ),
            ephemeral=True,
        )

    @tools.command(name="list", description="External tools (admins)")
    async def list_tools(self, interaction: discord.Interaction[Any]) -> None:
        """List tools from plugins and MCP servers with their source, scope and health."""
        if self.extools is None:
            await interaction.response.send_message(
                replies.NO_EXTERNAL_TOOLS(language_of_locale(interaction.locale)), ephemeral=True
            )
            return
        await show_tools(interaction, self.extools, self.bot.permissions)
