"""The conversation front: who gets answered, fairness limits, runs, approvals and Stop."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import deque
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import discord

from bot.agent.approvals import ApprovalService, Decision, Status, decode_arguments
from bot.agent.history import conversation_key
from bot.agent.loop import Agent, RunRequest
from bot.discord_ui.buttons import RejectReasonModal
from bot.discord_ui.cards import CardState, ToolCard
from bot.discord_ui.intake import read_shared, shares_anything
from bot.discord_ui.renderer import DeliveryBroken, RunRenderer
from bot.discord_ui.typing import TypingIndicator, typing_during
from bot.handlers.router import route
from bot.settings import Settings
from bot.storage.agent import ApprovalRequest
from bot.users import UserPreferences
from bot.worker import in_worker

if TYPE_CHECKING:
    from bot.discord_ui.client import OtomoBot

log = logging.getLogger(__name__)

_STATUS_CARD = {
    Status.APPROVED: CardState.RUNNING,
    Status.EXECUTED: CardState.RUNNING,
    Status.REJECTED: CardState.REJECTED,
    Status.EXPIRED: CardState.EXPIRED,
    Status.INVALIDATED: CardState.INVALIDATED,
}


@dataclass
class LiveRun:
    """A run in progress, so Stop and the one-run-per-user rule can find it."""

    run_id: str
    user_id: int
    channel_id: int
    stop: asyncio.Event = field(default_factory=asyncio.Event)


class RateLimiter:
    """At most `limit` events per user in a sliding `window` of seconds."""

    def __init__(
        self, limit: int, window: float = 60.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit = limit
        self.window = window
        self._clock = clock
        self._hits: dict[int, deque[float]] = {}

    def retry_after(self, user_id: int) -> float:
        """0 when the user may go now (and the hit is counted), else seconds to wait."""
        now = self._clock()
        hits = self._hits.setdefault(user_id, deque())
        while hits and now - hits[0] >= self.window:
            hits.popleft()
        if len(hits) >= self.limit:
            return self.window - (now - hits[0])
        hits.append(now)
        return 0.0


def mention_text(message: discord.Message, bot_id: int) -> str:
    """The message text without mentions of the bot (or of its managed role)."""
    text = message.content
    forms = [f"<@{bot_id}>", f"<@!{bot_id}>"]
    own_role = message.guild.self_role if message.guild else None
    if own_role is not None:
        forms.append(f"<@&{own_role.id}>")
    for form in forms:
        text = text.replace(form, " ")
    return " ".join(text.split()) if "\n" not in text else text.strip()


class Front:
    """Decides what to answer and runs the agent for it; also handles button clicks."""

    def __init__(
        self,
        bot: OtomoBot,
        *,
        settings: Settings,
        agent: Agent,
        approvals: ApprovalService,
        preferences: UserPreferences,
    ) -> None:
        self.bot = bot
        self.settings = settings
        self.agent = agent
        self.approvals = approvals
        self.preferences = preferences
        self.rate_limiter = RateLimiter(settings.user_rate_limit_per_minute)
        self.runs: dict[str, LiveRun] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    # -- the gate ------------------------------------------------------------------------

    def should_answer(self, message: discord.Message) -> bool:
        """Mentions, replies to the bot, and DMs (when enabled); never bots or webhooks."""
        me = self.bot.user
        if me is None or message.author.bot or message.webhook_id is not None:
            return False
        if message.author.id == me.id:
            return False
        if message.guild is None:
            return self.settings.respond_in_dms
        if me in message.mentions:
            return True
        # People often pick the bot's managed role from the autocomplete instead of the bot.
        own_role = message.guild.self_role
        if own_role is not None and own_role in message.role_mentions:
            return True
        resolved = message.reference.resolved if message.reference else None
        return isinstance(resolved, discord.Message) and resolved.author.id == me.id

    async def on_message(self, message: discord.Message) -> None:
        """Answer a message if it is for us, within the fairness limits."""
        if not self.should_answer(message):
            return
        assert self.bot.user is not None
        text = mention_text(message, self.bot.user.id)
        refusal = self._refusal(message, text)
        if refusal is not None:
            await self._reply_plain(message, refusal)
            return
        run = LiveRun(secrets.token_hex(6), message.author.id, message.channel.id)
        self.runs[run.run_id] = run
        self._spawn(
            typing_during(message.channel, self._answer(message, text, run)),
            f"answer {run.run_id}",
        )

    def _spawn(self, work: Coroutine[Any, Any, None], name: str) -> None:
        """Run work in the background, keeping a reference so shutdown can cancel it."""
        task = asyncio.create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def wait_idle(self) -> None:
        """Wait until no answer is being worked on (used at shutdown and by tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def _refusal(self, message: discord.Message, text: str) -> str | None:
        if not text and not shares_anything(message):
            return "はい、何でしょう？ / Yes? Mention me with a question or request."
        if len(text) > self.settings.max_input_chars:
            return (
                f"メッセージが長すぎます（{len(text)}文字）。{self.settings.max_input_chars}文字以内に"
                f"してください。/ That message is too long ({len(text)} characters); please keep "
                f"it under {self.settings.max_input_chars}."
            )
        if any(
            r.user_id == message.author.id and r.channel_id == message.channel.id
            for r in self.runs.values()
        ):
            return (
                "前のお願いをまだ処理中です。終わるか「停止」を押してからもう一度どうぞ。/ "
                "I'm still working on your previous request here; wait for it or press Stop."
            )
        wait = self.rate_limiter.retry_after(message.author.id)
        if wait > 0:
            return (
                f"ちょっと待ってください（あと{wait:.0f}秒）。/ You're sending requests quickly; "
                f"try again in {wait:.0f} s."
            )
        return None

    async def _answer(self, message: discord.Message, text: str, run: LiveRun) -> None:
        try:
            timezone = await self.preferences.timezone(message.author.id)
            chosen = await in_worker(route, text)
            log.info(
                "Answering %s in channel %s with the %s handler (%s)",
                message.author.id,
                message.channel.id,
                chosen.handler,
                chosen.rule,
            )
            request = RunRequest(
                user_id=message.author.id,
                user_name=message.author.display_name,
                channel_id=message.channel.id,
                guild_id=message.guild.id if message.guild else None,
                conversation_key=conversation_key(message.channel.id, message.author.id),
                handler=chosen.handler,
                timezone=timezone,
                origin_message_id=message.id,
                is_admin=self._is_approver(message.author),
            )
            # Cards still waiting in this conversation are cancelled by the new message.
            leftovers = await self._cards_of(
                await self.approvals.pending_in(request.conversation_key)
            )
            renderer = self._renderer(message.channel, message.author.id, run, message, leftovers)
            shared = await read_shared(message, self.bot)
            await renderer.consume(self.agent.run(request, text, run.stop, shared=shared))
        except DeliveryBroken:
            run.stop.set()
        except Exception:
            log.exception(
                "Answering message %s in channel %s failed", message.id, message.channel.id
            )
            await self._reply_plain(
                message,
                "ごめんなさい、内部エラーが起きました。少し待ってもう一度お願いします。/ Sorry, "
                "something went wrong on my side; please try again in a moment.",
            )
        finally:
            self.runs.pop(run.run_id, None)

    def _renderer(
        self,
        channel: Any,
        requester_id: int,
        run: LiveRun | None,
        reply_to: discord.Message | None = None,
        existing: dict[str, tuple[ToolCard, discord.PartialMessage]] | None = None,
    ) -> RunRenderer:
        return RunRenderer(
            channel,
            requester_id=requester_id,
            run_id=run.run_id if run else None,
            reply_to=reply_to,
            attach_card=self.approvals.attach_card,
            existing_cards=existing,
        )

    async def _reply_plain(self, message: discord.Message, text: str) -> None:
        try:
            await message.reply(
                text,
                mention_author=False,
                allowed_mentions=discord.AllowedMentions.none(),
            )
        except discord.HTTPException as exc:
            log.warning(
                "Could not reply in channel %s: %s %s", message.channel.id, exc.status, exc.text
            )

    # -- approvals -----------------------------------------------------------------------

    def _is_approver(self, user: discord.abc.User | discord.Member) -> bool:
        if not isinstance(user, discord.Member):
            return False
        permissions = user.guild_permissions
        if permissions.administrator or permissions.manage_guild:
            return True
        approver_roles = set(self.settings.approver_role_ids)
        return any(role.id in approver_roles for role in user.roles)

    async def on_approval_click(
        self, interaction: discord.Interaction[Any], approval_id: int, action: str
    ) -> None:
        """Approve / Reject / Always allow: check the clicker, acknowledge within 3 s, act."""
        request = await self.approvals.get(approval_id)
        if request is None:
            await interaction.response.send_message(
                "このリクエストはもう存在しません。/ This request no longer exists.",
                ephemeral=True,
            )
            return
        if interaction.user.id != request.requester_id and not self._is_approver(interaction.user):
            await interaction.response.send_message(
                f"これは {request.requester_name} さんのリクエストです。"
                "本人か承認者だけが決められます。"
                f"/ Only {request.requester_name} (who asked) or an approver can decide this.",
                ephemeral=True,
            )
            return
        if action == "reject" and request.status == Status.PENDING:
            await interaction.response.send_modal(RejectReasonModal(approval_id))
            return
        decision = Decision.ALWAYS if action == "always" else Decision.APPROVE
        if action == "reject":
            decision = Decision.REJECT
        self._spawn(self._apply_decision(interaction, approval_id, decision, None), "decision")

    async def on_reject_submitted(
        self, interaction: discord.Interaction[Any], approval_id: int, reason: str
    ) -> None:
        """The reject modal was submitted (possibly with an empty reason)."""
        self._spawn(
            self._apply_decision(interaction, approval_id, Decision.REJECT, reason or None),
            "decision",
        )

    async def _apply_decision(
        self,
        interaction: discord.Interaction[Any],
        approval_id: int,
        decision: Decision,
        reason: str | None,
    ) -> None:
        # Tracked from before the acknowledgement, so shutdown and tests see the whole decision.
        await interaction.response.defer()
        outcome = await self.approvals.decide(
            approval_id,
            interaction.user.id,
            decision,
            reason,
            is_approver=self._is_approver(interaction.user),
        )
        request = outcome.request
        if outcome.changed and request is not None and outcome.status is not None:
            # This click changed the row, so this process shows it and continues the
            # conversation, in that order (one writer at a time on the card).
            self._spawn(
                self._settle(request, outcome.status, interaction.user.id),
                f"resume approval {request.id}",
            )
        elif request is not None and outcome.status in (Status.EXPIRED, Status.INVALIDATED):
            await self._show_decision(request, outcome.status, interaction.user.id)
        if not outcome.effective:
            await interaction.followup.send(outcome.message, ephemeral=True)

    async def _settle(self, request: ApprovalRequest, status: Status, decided_by: int) -> None:
        await self._show_decision(request, status, decided_by)
        await self._resume(request)

    async def _show_decision(
        self, request: ApprovalRequest, status: Status, decided_by: int
    ) -> None:
        """Edit the card to show the decision and remove its buttons."""
        state = _STATUS_CARD.get(status)
        if state is None or request.card_message_id is None:
            return
        card = card_from_request(request, state, self._source_of(request.tool_name))
        card.decided_by = decided_by if status in (Status.APPROVED, Status.REJECTED) else None
        channel = self.bot.get_partial_messageable(request.channel_id)
        try:
            await channel.get_partial_message(request.card_message_id).edit(
                embed=card.render(), view=None
            )
        except discord.HTTPException as exc:
            log.warning(
                "Could not update approval card %s in channel %s: %s",
                request.card_message_id,
                request.channel_id,
                exc.status,
            )

    async def _resume(self, request: ApprovalRequest) -> None:
        run = LiveRun(secrets.token_hex(6), request.requester_id, request.channel_id)
        self.runs[run.run_id] = run
        try:
            channel = self.bot.get_partial_messageable(request.channel_id)
            timezone = await self.preferences.timezone(request.requester_id)
            existing = await self._cards_of([request])
            renderer = self._renderer(channel, request.requester_id, run, None, existing)
            async with TypingIndicator(channel):
                await renderer.consume(self.agent.resume(request.id, run.stop, timezone))
        except DeliveryBroken:
            pass
        finally:
            self.runs.pop(run.run_id, None)

    async def _cards_of(
        self, requests: list[ApprovalRequest]
    ) -> dict[str, tuple[ToolCard, discord.PartialMessage]]:
        """The card messages of stored requests, so a later run edits them in place."""
        cards: dict[str, tuple[ToolCard, discord.PartialMessage]] = {}
        for request in requests:
            if request.card_message_id is None:
                continue
            state = _STATUS_CARD.get(Status(request.status), CardState.NEEDS_APPROVAL)
            channel = self.bot.get_partial_messageable(request.channel_id)
            cards[request.tool_call_id] = (
                card_from_request(request, state, self._source_of(request.tool_name)),
                channel.get_partial_message(request.card_message_id),
            )
        return cards

    async def expire_overdue_cards(self) -> int:
        """Mark overdue approvals expired, update their cards and let each conversation record
        that nothing ran."""
        expired = await self.approvals.expire_overdue()
        for request in expired:
            self._spawn(
                self._settle(request, Status.EXPIRED, 0), f"resume expired approval {request.id}"
            )
        return len(expired)

    # -- stop ----------------------------------------------------------------------------

    async def on_stop_click(self, interaction: discord.Interaction[Any], run_id: str) -> None:
        """Stop a live run: only its requester or an approver may."""
        run = self.runs.get(run_id)
        if run is None:
            await interaction.response.send_message(
                "もう終わっています。/ That answer has already finished.", ephemeral=True
            )
            return
        if interaction.user.id != run.user_id and not self._is_approver(interaction.user):
            await interaction.response.send_message(
                "止められるのは質問した本人か承認者だけです。/ Only the person who asked (or an "
                "approver) can stop this.",
                ephemeral=True,
            )
            return
        run.stop.set()
        await interaction.response.send_message("⏹️ 停止します / Stopping.", ephemeral=True)

    def _source_of(self, tool_name: str) -> str | None:
        found = self.agent.registry.get(tool_name)
        return None if found is None or found.source == "core" else found.source

    async def close(self) -> None:
        """Cancel live runs at shutdown; pending approvals stay pending, so their buttons still
        work after the restart (the conversation resumes from stored history)."""
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)


def card_from_request(
    request: ApprovalRequest, state: CardState, source: str | None = None
) -> ToolCard:
    """A card rebuilt from the stored request (used after a restart)."""
    return ToolCard(
        name=request.tool_name,
        source=source,
        state=state,
        arguments=decode_arguments(request),
        requester_id=request.requester_id,
        approval_id=request.id,
        detail=request.reason,
    )
