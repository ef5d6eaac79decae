"""The message action "Ask Otomo about this": right-click a message → Apps, an optional question,
then a private answer with the message (its text and files) as fenced context, and a button
that posts the answer in the channel, attributed to the member who asked.

The run is a mention's: routed by the question's words, counted against the server's and the
member's budgets, the message fenced as someone else's words. It answers privately, where no
approval card can be shown, so it offers only tools that read; acting is for a mention.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.agent import events as ev
from bot.agent.conversation.history import asked_conversation_key
from bot.agent.conversation.parts import Shared
from bot.agent.runs import RunRequest, StopSignal
from bot.discord_ui.answering.conversation import Staff, answers_in_channel
from bot.discord_ui.answering.intake import quoted
from bot.discord_ui.commands.private_replies import NO_MENTIONS, say
from bot.discord_ui.members import actor_of_interaction
from bot.handlers.router import route
from bot.i18n import Language, answers, language_of_locale, replies
from bot.i18n.commands import MESSAGE_ACTIONS
from bot.runtime.worker import in_worker
from bot.text.clip import clip

log = logging.getLogger(__name__)

ASK_ABOUT = MESSAGE_ACTIONS[1].en
FORM_ID = "ask:form"
FORM_SECONDS = 600
QUESTION_CHARS = 1000
# An embed's description holds at most 4,096 characters; the answer lives there.
ANSWER_CHARS = 4096
ANSWER_COLOUR = discord.Colour.from_rgb(90, 140, 230)
# What /otomo usage counts these runs as.
PURPOSE = "ask"


def message_link(guild_id: int | None, channel_id: int, message_id: int) -> str:
    """A message's jump link."""
    guild = guild_id if guild_id is not None else "@me"
    return f"https://discord.com/channels/{guild}/{channel_id}/{message_id}"


def answer_embed(answer: str, title: str | None = None) -> discord.Embed:
    """The answer as an embed (longer than a message's 2,000 characters allow)."""
    return discord.Embed(title=title, description=clip(answer, ANSWER_CHARS), colour=ANSWER_COLOUR)


class PostPublicly(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"ask:pub:(?P<user>[0-9]{1,20}):(?P<message>[0-9]{1,20})",
):
    """Under a private answer: post it in the channel (persistent, so it works after a restart;
    the answer is read back from the message it is under)."""

    def __init__(self, user_id: int, message_id: int, language: Language = "ja") -> None:
        super().__init__(
            discord.ui.Button(
                label=replies.ASK_POST_PUBLICLY(language),
                style=discord.ButtonStyle.primary,
                custom_id=f"ask:pub:{user_id}:{message_id}",
            )
        )
        self.user_id = user_id
        self.message_id = message_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> PostPublicly:
        """The button a click's custom_id names."""
        return cls(int(match["user"]), int(match["message"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Post the answer in the channel; only the member who asked may."""
        language = language_of_locale(interaction.locale)
        if interaction.user.id != self.user_id:
            await say(interaction, replies.ASK_NOT_YOURS(language))
            return
        answer = _answer_of(interaction.message)
        if not answer:
            await say(interaction, replies.ASK_NOTHING_TO_POST(language))
            return
        staff: Staff | None = getattr(interaction.client, "staff", None)
        servers = staff.servers if staff is not None else None
        if interaction.guild_id is not None and not answers_in_channel(
            servers, interaction.guild_id, interaction.channel
        ):
            await say(interaction, replies.ACTION_NOT_HERE(language))
            return
        # Posts to a channel speak the server's language; the answer keeps the asker's.
        post_language = (
            servers.config(interaction.guild_id).language
            if servers is not None and interaction.guild_id is not None
            else language
        )
        link = message_link(interaction.guild_id, interaction.channel_id or 0, self.message_id)
        header = replies.ASK_POSTED_BY(post_language, asker=f"<@{self.user_id}>", link=link)
        # The button goes first (the acknowledgement, within 3 s), so it is pressed once.
        await interaction.response.edit_message(view=None)
        try:
            await interaction.followup.send(
                header, embed=answer_embed(answer), allowed_mentions=NO_MENTIONS, ephemeral=False
            )
        except discord.HTTPException as exc:
            log.info("Could not post an answer in %s: %s", interaction.channel_id, exc.status)
            await say(interaction, replies.ASK_CANNOT_POST(language))
            return
        await say(interaction, replies.ASK_POSTED(language))


def _answer_of(message: discord.Message | None) -> str:
    """The answer a private answer's message shows."""
    if message is None or not message.embeds:
        return ""
    return message.embeds[0].description or ""


class AskForm(discord.ui.Modal):
    """An optional question about the message."""

    def __init__(self, action: AskAboutMessage, message: discord.Message, language: Language):
        super().__init__(
            title=replies.ASK_FORM_TITLE(language), timeout=FORM_SECONDS, custom_id=FORM_ID
        )
        self.action = action
        self.message = message
        self.language: Language = language
        self.question: discord.ui.TextInput[AskForm] = discord.ui.TextInput(
            label=replies.ASK_FORM_QUESTION(language),
            placeholder=replies.ASK_FORM_QUESTION_HINT(language),
            custom_id="question",
            style=discord.TextStyle.paragraph,
            required=False,
            max_length=QUESTION_CHARS,
        )
        self.add_item(self.question)

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        """Answer privately."""
        await self.action.answer(interaction, self.message, self.question.value, self.language)


class AskAboutMessage(commands.Cog):
    """The "Ask Otomo about this" message command and its Post publicly button."""

    def __init__(self, client: discord.Client, staff: Staff) -> None:
        self._client = client
        self._staff = staff
        self.menu = app_commands.ContextMenu(name=ASK_ABOUT, callback=self.open_form)
        # In DMs the member can simply write to Otomo.
        self.menu.guild_only = True

    async def cog_load(self) -> None:
        """Add the message command and the persistent button."""
        tree = getattr(self._client, "tree", None)
        if tree is not None:
            tree.add_command(self.menu)
        self._client.add_dynamic_items(PostPublicly)

    async def cog_unload(self) -> None:
        """Take them out again."""
        tree = getattr(self._client, "tree", None)
        if tree is not None:
            tree.remove_command(self.menu.name, type=self.menu.type)
        self._client.remove_dynamic_items(PostPublicly)

    def refusal(self, interaction: discord.Interaction[Any], language: Language) -> str | None:
        """Why Otomo does not answer this click here, or None."""
        if interaction.guild_id is None:
            return replies.ACTION_ONLY_IN_SERVERS(language)
        if not answers_in_channel(self._staff.servers, interaction.guild_id, interaction.channel):
            return replies.ACTION_NOT_HERE(language)
        if self._staff.runs.closing:
            return answers.RESTARTING(language)
        return None

    async def open_form(
        self, interaction: discord.Interaction[Any], message: discord.Message
    ) -> None:
        """Ask for an optional question (a form must be the first answer, within 3 s)."""
        language = language_of_locale(interaction.locale)
        refused = self.refusal(interaction, language)
        if refused is not None:
            await say(interaction, refused)
            return
        await interaction.response.send_modal(AskForm(self, message, language))

    async def answer(
        self,
        interaction: discord.Interaction[Any],
        message: discord.Message,
        question: str,
        language: Language,
    ) -> None:
        """Acknowledge within Discord's 3 s, then answer in the background (shutdown waits for
        or cancels it like a mention's answer)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        self._staff.tasks.spawn(
            self._answer(interaction, message, question, language), f"ask {interaction.id}"
        )

    async def _answer(
        self,
        interaction: discord.Interaction[Any],
        message: discord.Message,
        question: str,
        language: Language,
    ) -> None:
        """Run the agent on the question with the message quoted; answer privately."""
        staff = self._staff
        budgets = staff.budgets
        spent = (
            None
            if budgets is None
            else await budgets.spent(interaction.guild_id, interaction.user.id)
        )
        if spent is not None:
            await say(interaction, spent.sentence(language))
            return
        try:
            # The message as it is now: it may have been edited or deleted meanwhile.
            message = await message.channel.fetch_message(message.id)
        except (discord.NotFound, discord.Forbidden):
            await say(interaction, replies.ACTION_MESSAGE_GONE(language))
            return
        except discord.HTTPException as exc:
            log.info("Could not fetch message %s again: %s", message.id, exc.status)
        # Keyed by the interaction: an ask is a conversation of its own and queues behind
        # nothing, but a shutdown's Stop reaches it.
        run = staff.runs.start(interaction.user.id, interaction.id)
        try:
            answer = await self._run(interaction, message, question, language, run.stop)
        except Exception as exc:
            if staff.health.noticed(exc):
                await say(interaction, answers.DATABASE_UNREACHABLE(language))
                return
            log.exception("Answering a question about message %s failed", message.id)
            await say(interaction, answers.INTERNAL_ERROR(language))
            return
        finally:
            staff.runs.end(run)
        if isinstance(answer, ev.Failed):
            await say(interaction, answer.message or replies.ASK_NO_ANSWER(language))
            return
        try:
            await interaction.followup.send(
                embed=answer_embed(answer, replies.ASK_ANSWER_TITLE(language)),
                view=_post_view(interaction.user.id, message.id, language),
                ephemeral=True,
                allowed_mentions=NO_MENTIONS,
            )
        except discord.HTTPException as exc:
            log.warning("Could not answer interaction %s: %s", interaction.id, exc.status)

    async def _run(
        self,
        interaction: discord.Interaction[Any],
        message: discord.Message,
        question: str,
        language: Language,
        stop: StopSignal,
    ) -> str | ev.Failed:
        """The run's answer text, or its failure."""
        staff = self._staff
        text = question.strip() or replies.ASK_DEFAULT_QUESTION(language)
        chosen = await in_worker(route, text)
        actor = actor_of_interaction(interaction)
        registry = staff.agent.registry
        readers = tuple(
            name for name in registry.names() if (found := registry.get(name)) and found.read_only
        )
        request = RunRequest(
            user_id=interaction.user.id,
            user_name=interaction.user.display_name,
            channel_id=message.channel.id,
            guild_id=interaction.guild_id,
            # A conversation of its own: a private answer never becomes the channel's history.
            conversation_key=asked_conversation_key(
                message.channel.id, interaction.user.id, interaction.id
            ),
            handler=chosen.name,
            timezone=await staff.preferences.timezone(interaction.user.id),
            is_admin=staff.permissions.is_approver(actor),
            language=language,
            only_tools=readers,
            role_ids=tuple(sorted(actor.role_ids)),
            manages_server=staff.permissions.is_server_admin(actor),
            purpose=PURPOSE,
        )
        shared = Shared(quotes=(quoted(message, "reply"),))
        notes: list[str] = []
        done: ev.Done | None = None
        # The stream is read to its end (Done or Failed come last), so the run closes itself.
        async for event in staff.agent.run(request, text, stop, shared=shared):
            if isinstance(event, ev.Failed):
                return event
            if isinstance(event, ev.Notice):
                notes.append(event.text)
            elif isinstance(event, ev.Done):
                done = event
        answer = done.text.strip() if done is not None else ""
        if not answer:
            return ev.Failed(replies.ASK_NO_ANSWER(language), "empty")
        return "\n".join([answer, *(f"-# {note}" for note in notes)])


def _post_view(user_id: int, message_id: int, language: Language) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(PostPublicly(user_id, message_id, language))
    return view
