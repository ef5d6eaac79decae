"""The message action "Ask Otomo about this": right-click a message → Apps, an optional question,
then a private answer with the message (its text and files) as fenced context, and a button
that posts the answer in the channel, attributed to the member who asked (posting_answers.py).

The run is a mention's: routed by the question's words, counted against the server's and the
member's budgets, the message fenced as someone else's words. It answers privately, where no
approval card can be shown, so it offers only tools that read; acting is for a mention.
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord.ext import commands

from bot.agent import events as ev
from bot.agent.conversation.history import asked_conversation_key
from bot.agent.conversation.parts import Shared
from bot.agent.runs import RunRequest, StopSignal
from bot.discord_ui.answering.conversation import Staff, action_refusal
from bot.discord_ui.answering.gate import quoted
from bot.discord_ui.answering.posting_answers import PostPublicly, answer_embed, post_view
from bot.discord_ui.commands.private_replies import NO_MENTIONS, say
from bot.discord_ui.members import actor_of_interaction
from bot.discord_ui.message_actions import MessageAction
from bot.i18n import Language, answers, replies
from bot.i18n.commands import MESSAGE_ACTIONS
from bot.runtime.worker import in_worker

log = logging.getLogger(__name__)

ASK_ABOUT = MESSAGE_ACTIONS[1].en
FORM_ID = "ask:form"
FORM_SECONDS = 600
QUESTION_CHARS = 1000
# What /otomo usage counts these runs as.
PURPOSE = "ask"


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
        self.action = MessageAction(
            client,
            ASK_ABOUT,
            self.refusal,
            lambda message, language: AskForm(self, message, language),
        )

    async def cog_load(self) -> None:
        """Add the message command and the persistent button."""
        self.action.add()
        self._client.add_dynamic_items(PostPublicly)

    async def cog_unload(self) -> None:
        """Take them out again."""
        self.action.remove()
        self._client.remove_dynamic_items(PostPublicly)

    def refusal(self, interaction: discord.Interaction[Any], language: Language) -> str | None:
        """Why Otomo does not answer this click here, or None."""
        refused = action_refusal(self._staff.servers, interaction, language)
        if refused is None and self._staff.runs.closing:
            return answers.RESTARTING(language)
        return refused

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
                view=post_view(interaction.user.id, message.id, language),
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
        chosen = await in_worker(self._staff.router.route, text)
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
