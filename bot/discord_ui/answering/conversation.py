"""Answering: each message the gate lets through becomes one agent run, rendered in its channel."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

import discord

from bot.agent import events as ev
from bot.agent.approvals.service import ApprovalService
from bot.agent.loop import Agent, RunRequest
from bot.discord_ui.answering.gate import Gate, read_shared
from bot.discord_ui.answering.live import (
    BackgroundTasks,
    LiveRun,
    LiveRuns,
    TypingIndicator,
    typing_during,
)
from bot.discord_ui.answering.renderer import RunRenderer
from bot.discord_ui.answering.threads import Threads
from bot.discord_ui.cards.owner import CardOwner
from bot.discord_ui.members import actor_of
from bot.handlers.router import Router
from bot.i18n import Language, answers, language_of_text, replies
from bot.members.permissions import Permissions
from bot.members.preferences import UserPreferences
from bot.runtime.message_claims import MessageClaims, message_key
from bot.runtime.metrics import Metrics
from bot.runtime.send_failures import SendError
from bot.runtime.worker import in_worker
from bot.servers.budgets import Budgets
from bot.servers.directory import ServerDirectory
from bot.settings import Settings
from bot.storage.outage import DatabaseHealth

log = logging.getLogger(__name__)

# The member was told today that a budget is spent: later mentions only get this.
BUDGET_REACTION = "🪫"


class Listener(Protocol):
    """Answers without a mention in the channels a server's admins chose (a feature fills it)."""

    def heard(self, message: discord.Message, me: discord.ClientUser) -> bool:
        """Whether an unaddressed message in a listening channel asks Otomo something (cheap:
        no query, no model call)."""
        ...

    async def take_turn(self, message: discord.Message) -> bool:
        """Whether the channel's cool-down lets Otomo answer now (the turn is then taken, in
        every process)."""
        ...


@dataclass(frozen=True)
class Staff:
    """What answering needs, shared with the approval clicks (they resume runs too)."""

    settings: Settings
    agent: Agent
    approvals: ApprovalService
    preferences: UserPreferences
    cards: CardOwner
    runs: LiveRuns
    tasks: BackgroundTasks
    health: DatabaseHealth
    permissions: Permissions
    # The threads the bot opened for conversations.
    threads: Threads
    # The keyword router, with the cues the features registered.
    router: Router
    # Mentions, answers and their latency, for /metrics.
    metrics: Metrics = field(default_factory=Metrics)
    # Each server's settings (where Otomo answers) and budgets; None: the environment's only.
    servers: ServerDirectory | None = None
    budgets: Budgets | None = None
    # Which process answers a message several receive; None: this one always does.
    claims: MessageClaims | None = None
    # Listening channels: unaddressed questions answered; None: only when addressed.
    listener: Listener | None = None

    def renderer(
        self,
        channel: discord.abc.Messageable,
        *,
        requester_id: int,
        run: LiveRun | None,
        key: str,
        reply_to: discord.Message | None = None,
        request: RunRequest | None = None,
        language: Language = "ja",
        before_first_post: Callable[[], Awaitable[None]] | None = None,
    ) -> RunRenderer:
        """A renderer for one run, its cards handed to the card owner."""
        return RunRenderer(
            channel,
            requester_id=requester_id,
            run_id=run.run_id if run else None,
            cards=self.cards,
            conversation_key=key,
            reply_to=reply_to,
            attach_card=self.approvals.attach_card,
            describe=self.agent.registry.get,
            language=request.language if request else language,
            timezone=request.timezone if request else None,
            before_first_post=before_first_post,
        )


class Conversations:
    """Runs the agent for each message that is for us, within the fairness limits."""

    def __init__(self, staff: Staff, client: discord.Client) -> None:
        self.staff = staff
        self._client = client
        self.gate = Gate(staff.settings)

    async def on_message(self, message: discord.Message) -> None:
        """Answer a message if it is for us (after the member's run here, if one is going);
        refuse with a sentence, or a reaction once said, when a limit is hit."""
        if message.author.bot:
            return  # never answered nor heard (the gate and the listener agree): our own replies
        if not self.answers_here(message):
            return
        in_bot_thread = await self._in_bot_thread(message)
        me = self._client.user
        verdict = self.gate.check(message, me, in_bot_thread=in_bot_thread)
        listened = False
        if verdict.refusal is None and verdict.reaction is None and not verdict.answer:
            listener = self.staff.listener
            if listener is None or me is None or not listener.heard(message, me):
                return
            listened = True
        if not await self.claimed(message):
            return
        if listened:
            # The channel's turn first, so questions asked during its cool-down do not count
            # against the member's rate limit.
            if not await self._listening_turn(message):
                return
            verdict = self.gate.check(message, me, listened=True)
            if not verdict.answer:
                # Nobody called us: a refusal would answer a question to the room with a
                # complaint.
                return
        shard = message.guild.shard_id if message.guild else 0
        if verdict.refusal is not None:
            self.staff.metrics.mention(shard)
            self.staff.metrics.reply(shard, "refused", 0.0)
            await reply_plain(message, verdict.refusal)
            return
        if verdict.reaction is not None:
            await react(message, verdict.reaction)
            return
        if not verdict.answer:
            return
        self.staff.metrics.mention(shard)
        if self.staff.runs.closing:
            await reply_plain(message, answers.RESTARTING(self.language(verdict.text)))
            return
        if await self.over_budget(message):
            return
        # Registered now, in the order messages arrive, so a follow-up queues behind its run.
        run = self.staff.runs.start(message.author.id, message.channel.id, shared=in_bot_thread)
        self.staff.tasks.spawn(
            typing_during(
                message.channel,
                partial(self._answer, message, verdict.text, run, shared=in_bot_thread),
            ),
            f"answer {run.run_id}",
        )

    async def _listening_turn(self, message: discord.Message) -> bool:
        """The listening channel's cool-down allows an answer now (taken); else stay quiet."""
        assert self.staff.listener is not None
        try:
            if await self.staff.listener.take_turn(message):
                return True
        except Exception as exc:
            if not self.staff.health.noticed(exc):
                log.exception("Could not take channel %s's listening turn", message.channel.id)
            return False
        log.info("Channel %s is cooling down; not answering unasked", message.channel.id)
        return False

    async def claimed(self, message: discord.Message) -> bool:
        """Whether this process answers the message (another one that also received it may
        have claimed it first)."""
        claims = self.staff.claims
        if claims is None or await claims.claim(message_key(message.id)):
            return True
        log.info("Message %s is answered by another process", message.id)
        return False

    def language(self, text: str) -> Language:
        """The language to answer a message in: the one it is written in."""
        return language_of_text(text, self.staff.settings.default_language)

    async def _in_bot_thread(self, message: discord.Message) -> bool:
        """Whether the message is in a thread the bot opened (its members need no mention)."""
        try:
            return await self.staff.threads.is_ours(message.channel)
        except Exception as exc:
            if not self.staff.health.noticed(exc):
                log.exception("Could not tell whether channel %s is ours", message.channel.id)
            return False

    def answers_here(self, message: discord.Message) -> bool:
        """Whether the server's admins let Otomo answer in this channel (a thread follows its
        parent channel, a channel its category); DMs are not a server's to decide."""
        if message.guild is None:
            return True
        return answers_in_channel(self.staff.servers, message.guild.id, message.channel)

    async def over_budget(self, message: discord.Message) -> bool:
        """When the server's or member's daily budget is spent: say so once a day (then only
        react) and make no model call."""
        budgets = self.staff.budgets
        if budgets is None or message.guild is None:
            return False
        spent = await budgets.spent(message.guild.id, message.author.id)
        if spent is None:
            return False
        if budgets.first_telling(message.guild.id, message.author.id, spent):
            await reply_plain(message, spent.sentence(self.language(message.content)))
        else:
            await react(message, BUDGET_REACTION)
        return True

    async def _answer(
        self,
        message: discord.Message,
        text: str,
        run: LiveRun,
        typing: TypingIndicator,
        *,
        shared: bool = False,
    ) -> None:
        staff = self.staff
        language = self.language(text)
        started = time.perf_counter()
        outcome = "failed"
        try:
            await run.turn()
            channel: discord.abc.Messageable = message.channel
            reply_to: discord.Message | None = message
            if not shared and await staff.threads.opens_for(message):
                thread = await staff.threads.open_from(message, language)
                if thread is not None:
                    # The answer, and the conversation from here on, live in the new thread.
                    channel, reply_to, shared = thread, None, True
            channel_id = getattr(channel, "id", message.channel.id)
            timezone = await staff.preferences.timezone(message.author.id)
            chosen = await in_worker(self.staff.router.route, text)
            log.info(
                "Answering %s in channel %s with the %s handler (%s)",
                message.author.id,
                message.channel.id,
                chosen.name,
                chosen.rule,
            )
            actor = actor_of(message.author)
            request = RunRequest.for_message(
                user_id=message.author.id,
                user_name=message.author.display_name,
                channel_id=channel_id,
                guild_id=message.guild.id if message.guild else None,
                handler=chosen.name,
                timezone=timezone,
                origin_message_id=message.id,
                is_admin=staff.permissions.is_approver(actor),
                role_ids=tuple(sorted(actor.role_ids)),
                manages_server=staff.permissions.is_server_admin(actor),
                language=language,
                shared=shared,
            )
            renderer = staff.renderer(
                channel,
                requester_id=message.author.id,
                run=run,
                key=request.conversation_key,
                reply_to=reply_to,
                request=request,
                before_first_post=typing.shown,
            )
            sharing = await read_shared(message, self._client, thread_start=not shared)
            last = await renderer.consume(staff.agent.run(request, text, run.stop, shared=sharing))
            outcome = "failed" if isinstance(last, ev.Failed) else "answered"
        except SendError:
            # Logged by the renderer; the channel does not take our messages now.
            run.stop.request()
        except Exception as exc:
            if staff.health.noticed(exc):
                # Said once per outage by the database's health; the member gets a sentence.
                await typing.shown()
                await reply_plain(message, answers.DATABASE_UNREACHABLE(language))
                return
            log.exception(
                "Answering message %s in channel %s failed", message.id, message.channel.id
            )
            await typing.shown()
            await reply_plain(message, answers.INTERNAL_ERROR(language))
        finally:
            staff.runs.end(run)
            shard = message.guild.shard_id if message.guild else 0
            staff.metrics.reply(shard, outcome, time.perf_counter() - started)


def answers_in_channel(servers: ServerDirectory | None, guild_id: int, channel: object) -> bool:
    """Whether the server's admins let Otomo answer in channel (a thread follows its parent
    channel, a channel its category); mentions and message actions ask the same."""
    if servers is None:
        return True
    parent = getattr(channel, "parent_id", None)
    category = getattr(channel, "category_id", None)
    if category is None and isinstance(channel, discord.Thread) and channel.parent:
        category = channel.parent.category_id
    return servers.config(guild_id).answers_in(getattr(channel, "id", None), parent, category)


def action_refusal(
    servers: ServerDirectory | None, interaction: discord.Interaction[Any], language: Language
) -> str | None:
    """Why a message action may not be used where it was clicked (a DM, a channel where
    Otomo does not answer), or None."""
    if interaction.guild_id is None:
        return replies.ACTION_ONLY_IN_SERVERS(language)
    if not answers_in_channel(servers, interaction.guild_id, interaction.channel):
        return replies.ACTION_NOT_HERE(language)
    return None


async def react(message: discord.Message, emoji: str) -> None:
    """A reaction on the member's message; one that cannot be added is only logged."""
    try:
        await message.add_reaction(emoji)
    except discord.HTTPException as exc:
        log.info("Could not react in channel %s: %s", message.channel.id, exc.status)


async def reply_plain(message: discord.Message, text: str) -> None:
    """A short reply that pings nobody; failures are logged, not raised."""
    try:
        await message.reply(
            text, mention_author=False, allowed_mentions=discord.AllowedMentions.none()
        )
    except discord.HTTPException as exc:
        log.warning(
            "Could not reply in channel %s: %s %s", message.channel.id, exc.status, exc.text
        )
