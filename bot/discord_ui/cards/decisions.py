"""Approval clicks: who may decide, the decision as a row update, and resuming from history.

The process that changes a row (a click here, or the expiry sweep) is the one that continues
the conversation, by resuming it from the stored history: no run waits in memory.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import discord

from bot.agent.approvals.service import Decision, Status, decode_arguments
from bot.agent.approvals.types import already_text
from bot.agent.recovery import BROKE_OFF_DETAIL, RESTART_DETAIL, Outcome
from bot.agent.runs import RunRequest
from bot.discord_ui.answering.conversation import Staff
from bot.discord_ui.answering.live import TypingIndicator
from bot.discord_ui.cards import wording
from bot.discord_ui.cards.editing import form_fields, read_form
from bot.discord_ui.cards.embed import REJECTION_STATE, CardState, ToolCard, dressed
from bot.discord_ui.cards.owner import CardKey
from bot.discord_ui.members import actor_of
from bot.discord_ui.persistent_buttons import EditModal, RejectReasonModal
from bot.i18n import Language, Text, answers, language_of_locale
from bot.runtime.send_failures import SendError
from bot.storage.agent import ApprovalRequest
from bot.text.clip import clip

log = logging.getLogger(__name__)

_STATUS_CARD = {
    Status.APPROVED: CardState.RUNNING,
    Status.EXECUTED: CardState.RUNNING,
    Status.REJECTED: CardState.REJECTED,
    Status.EXPIRED: CardState.EXPIRED,
    Status.INVALIDATED: CardState.INVALIDATED,
}


def _recovered_state(outcome: Outcome) -> CardState:
    """The card state of a call recovery ended (the rejections map as in a run)."""
    if outcome == "done":
        return CardState.DONE
    if outcome == "failed":
        return CardState.FAILED
    return REJECTION_STATE[outcome]


_ACTIONS = {"approve": Decision.APPROVE, "always": Decision.ALWAYS, "reject": Decision.REJECT}


class ApprovalDesk:
    """Handles Approve / Reject / Always allow, the expiry of unanswered cards and approved
    calls left behind."""

    def __init__(self, staff: Staff, channel: Callable[[int], discord.PartialMessageable]) -> None:
        self.staff = staff
        self._channel = channel

    async def on_click(
        self, interaction: discord.Interaction[Any], approval_id: int, action: str
    ) -> None:
        """Check the clicker, acknowledge within 3 s, then decide in a tracked task.

        The row is read once here and handed on: the decision updates it conditionally and
        the resume continues from it.
        """
        request = await self.staff.approvals.get(approval_id)
        language = language_of_locale(interaction.locale)
        if request is None:
            await interaction.response.send_message(
                answers.UNKNOWN_APPROVAL(language), ephemeral=True
            )
            return
        refusal = self.staff.approvals.refusal(
            request, interaction.user.id, self._approver(interaction.user), language
        )
        if refusal is not None:
            await interaction.response.send_message(refusal, ephemeral=True)
            return
        if action == "reject" and request.status == Status.PENDING:
            await interaction.response.send_modal(RejectReasonModal(approval_id, language))
            return
        if action == "edit":
            await self._open_edit(interaction, request)
            return
        if action in ("all", "none"):
            decision = Decision.APPROVE if action == "all" else Decision.REJECT
            self.staff.tasks.spawn(self._decide_all(interaction, request, decision), "decision")
            return
        self.staff.tasks.spawn(
            self._decide(interaction, request, _ACTIONS[action], None), "decision"
        )

    async def on_edit_submitted(
        self, interaction: discord.Interaction[Any], approval_id: int, values: dict[str, str]
    ) -> None:
        """The edit form was submitted: check the arguments, then approve the call as edited;
        an edit that cannot run is answered privately and the card stays as it was."""
        self.staff.tasks.spawn(self._edited(interaction, approval_id, values), "decision")

    async def on_reject_submitted(
        self, interaction: discord.Interaction[Any], approval_id: int, reason: str
    ) -> None:
        """The reject modal was submitted (possibly with an empty reason)."""
        self.staff.tasks.spawn(
            self._decide(interaction, approval_id, Decision.REJECT, reason or None), "decision"
        )

    async def expire_overdue_cards(self) -> int:
        """Expire overdue approvals; each card says so and its conversation records it."""
        expired = await self.staff.approvals.expire_overdue()
        for request in expired:
            self.staff.tasks.spawn(self.resume(request), f"expire approval {request.id}")
        return len(expired)

    async def resume_left_behind(self) -> int:
        """Run the approved calls a stopped process never ran (its click was recorded)."""
        staff = self.staff
        found = await staff.agent.calls.left_behind(staff.agent.clock.now())
        for request in found:
            staff.tasks.spawn(self.resume(request), f"resume approval {request.id}")
        return len(found)

    async def forgotten(self, requests: Sequence[ApprovalRequest]) -> None:
        """Cards of approvals a member's /otomo forget cancelled: final at once, without the
        arguments, saying why (their conversation is gone, so nothing will run)."""
        for request in requests:
            await self.staff.cards.move(
                CardKey(request.conversation_key, request.tool_call_id),
                CardState.INVALIDATED,
                base=self._card_of(request),
                fallback=(
                    (request.channel_id, request.card_message_id)
                    if request.card_message_id
                    else None
                ),
                arguments=None,
                detail=wording.FORGOTTEN(self._asked(request).language),
            )

    async def recover(self, *, everyone: bool) -> int:
        """End the calls a stopped process left open, on their cards too: at start those of
        this process's earlier life, in the sweep any whose lease ran out."""
        ended = await self.staff.agent.recovery.recover(everyone=everyone)
        for item in ended:
            call = item.call
            fallback = (call.channel_id, call.message_id) if call.message_id else None
            # A call that asked for approval kept its member's language with the request.
            asked = await self.staff.approvals.find_by_call(call.conversation_key, call.call_id)
            language = self._asked(asked).language if asked else "ja"
            await self.staff.cards.move(
                CardKey(call.conversation_key, call.call_id),
                _recovered_state(item.outcome),
                base=dressed(
                    ToolCard(name=call.tool_name, language=language),
                    self.staff.agent.registry.get(call.tool_name),
                ),
                fallback=fallback,
                detail=recovery_reason(item.detail, language),
            )
        return len(ended)

    async def sweep(self) -> None:
        """The periodic pass: end overdue cards, run what a stopped process left approved,
        end calls whose process stopped while they ran."""
        await self.expire_overdue_cards()
        await self.resume_left_behind()
        await self.recover(everyone=True)

    # -- inside --------------------------------------------------------------------------

    def _asked(self, request: ApprovalRequest) -> RunRequest:
        """The run request the approval row kept (see `RunRequest.of_approval`)."""
        return RunRequest.of_approval(request, self.staff.agent.settings.timezone)

    def _approver(self, user: discord.abc.User | discord.Member) -> bool:
        return self.staff.permissions.is_approver(actor_of(user))

    async def _open_edit(
        self, interaction: discord.Interaction[Any], request: ApprovalRequest
    ) -> None:
        language = self._asked(request).language
        found = self.staff.agent.registry.get(request.tool_name)
        if request.status != Status.PENDING or found is None:
            await interaction.response.send_message(
                already_text(Status(request.status), language_of_locale(interaction.locale)),
                ephemeral=True,
            )
            return
        fields = form_fields(found, decode_arguments(request), language)
        title = found.look.title.form(language) if found.look else wording.EDIT_TITLE(language)
        await interaction.response.send_modal(EditModal(request.id, title, fields))

    async def _edited(
        self, interaction: discord.Interaction[Any], approval_id: int, values: dict[str, str]
    ) -> None:
        await interaction.response.defer()
        staff = self.staff
        request = await staff.approvals.get(approval_id)
        found = staff.agent.registry.get(request.tool_name) if request else None
        clicker = language_of_locale(interaction.locale)
        if request is None or found is None:
            await interaction.followup.send(wording.GONE(clicker), ephemeral=True)
            return
        asked = self._asked(request)
        language = asked.language
        approver = self._approver(interaction.user)
        refusal = staff.approvals.refusal(request, interaction.user.id, approver, clicker)
        if refusal is not None:
            await interaction.followup.send(refusal, ephemeral=True)
            return
        typed, problem = read_form(found, values, language)
        arguments = None
        if typed is not None:
            arguments, problem = await staff.agent.calls.validate_edit(request, asked, typed)
        if arguments is None:
            why = wording.EDIT_INVALID(language, why=problem or "")
            await interaction.followup.send(clip(why, 1900), ephemeral=True)
            return
        outcome = await staff.approvals.approve_edited(
            request, interaction.user.id, arguments, is_approver=approver, language=clicker
        )
        if outcome.changed and outcome.request is not None:
            await self._carry_on(outcome.request)
        if not outcome.effective:
            await interaction.followup.send(outcome.message, ephemeral=True)

    async def _decide_all(
        self,
        interaction: discord.Interaction[Any],
        request: ApprovalRequest,
        decision: Decision,
    ) -> None:
        """Approve all / Reject all: every call of the batch still undecided, then one
        resume carries the whole answer on."""
        await interaction.response.defer()
        decided: ApprovalRequest | None = None
        approver = self._approver(interaction.user)
        for row in await self.staff.approvals.in_batch(request):
            if row.status != Status.PENDING:
                continue
            outcome = await self.staff.approvals.decide(
                row, interaction.user.id, decision, is_approver=approver
            )
            if outcome.changed and outcome.request is not None:
                decided = outcome.request
        if decided is None:
            text = wording.NOTHING_WAITING(language_of_locale(interaction.locale))
            await interaction.followup.send(text, ephemeral=True)
            return
        await self._carry_on(decided)

    async def _carry_on(self, request: ApprovalRequest) -> None:
        """After a decision: resume the answer, unless calls asked with this one still wait
        (then the card says it is decided and waits for them)."""
        if await self.staff.approvals.batch_waits(request):
            status = Status(request.status)
            if status == Status.APPROVED:
                detail = wording.APPROVED_WAITING(self._asked(request).language)
                await self._show(request, status, request.decided_by, detail, waiting=True)
            else:
                await self._show(request, status, request.decided_by, request.reason)
            return
        await self.resume(request)

    async def _decide(
        self,
        interaction: discord.Interaction[Any],
        approval: ApprovalRequest | int,
        decision: Decision,
        reason: str | None,
    ) -> None:
        # Tracked from before the acknowledgement, so shutdown and tests see the whole decision.
        await interaction.response.defer()
        outcome = await self.staff.approvals.decide(
            approval,
            interaction.user.id,
            decision,
            reason,
            is_approver=self._approver(interaction.user),
            language=language_of_locale(interaction.locale),
        )
        request = outcome.request
        if outcome.changed and request is not None:
            # The resumed run moves the card (running with Stop, or rejected / expired).
            await self._carry_on(request)
        elif request is not None and outcome.status in (Status.EXPIRED, Status.INVALIDATED):
            # Someone else ended it; make sure this card says so.
            await self._show(request, outcome.status, None)
        if not outcome.effective:
            await interaction.followup.send(outcome.message, ephemeral=True)

    async def _show(
        self,
        request: ApprovalRequest,
        status: Status,
        decided_by: int | None,
        detail: str | None = None,
        *,
        waiting: bool = False,
        asked: RunRequest | None = None,
    ) -> None:
        """Show the request's status on its card; waiting: approved, but calls asked with it
        are still undecided, so it has not started."""
        state = CardState.APPROVED_WAITING if waiting else _STATUS_CARD.get(status)
        if state is None:
            return
        fallback = (
            (request.channel_id, request.card_message_id) if request.card_message_id else None
        )
        await self.staff.cards.move(
            CardKey(request.conversation_key, request.tool_call_id),
            state,
            base=self._card_of(request, asked),
            fallback=fallback,
            decided_by=decided_by,
            detail=detail or request.reason,
        )

    def _card_of(self, request: ApprovalRequest, asked: RunRequest | None = None) -> ToolCard:
        """The request's card as its member sees it, with its tool's face (asked: its run
        request, when already read)."""
        found = self.staff.agent.registry.get(request.tool_name)
        card = card_from_request(
            request, asked or self._asked(request), found.source if found else None
        )
        return dressed(card, found)

    async def resume(self, request: ApprovalRequest) -> None:
        """Run the rest of the conversation after a decision, rendered in its channel; its
        events move the card once (to running, with the run's Stop button, or to its end)."""
        staff = self.staff
        # Read once and handed on: to the run's lane, its renderer, the agent and the card.
        asked = self._asked(request)
        run = staff.runs.start(request.requester_id, request.channel_id, shared=asked.shared)
        try:
            await run.turn()
            renderer = staff.renderer(
                self._channel(request.channel_id),
                requester_id=request.requester_id,
                run=run,
                key=request.conversation_key,
                request=asked,
            )
            async with TypingIndicator(renderer.channel):
                last = await renderer.consume(staff.agent.resume(request, run.stop, asked))
            if last is None and request.status in (Status.REJECTED, Status.EXPIRED):
                # Nothing left to carry on (the conversation had moved on): the card still
                # tells how the request ended.
                await self._show(request, Status(request.status), request.decided_by, asked=asked)
        except SendError:
            pass  # logged by the renderer
        except Exception:
            log.exception("Resuming approval %s failed", request.id)
        finally:
            staff.runs.end(run)


# Recovery's reasons (written for the model's history) as the card's member reads them.
_RECOVERY_DETAILS: dict[str, Text] = {
    RESTART_DETAIL: answers.RESTARTED_BEFORE_RUN,
    BROKE_OFF_DETAIL: answers.BROKE_OFF,
}


def recovery_reason(detail: str | None, language: Language) -> str | None:
    """A recovery reason in the member's language (another reason as it was stored)."""
    known = _RECOVERY_DETAILS.get(detail or "")
    return known(language) if known else detail


def card_from_request(
    request: ApprovalRequest, asked: RunRequest, source: str | None = None
) -> ToolCard:
    """A card rebuilt from the stored request and its run request (used when another process
    showed it)."""
    return ToolCard(
        name=request.tool_name,
        source=source,
        arguments=decode_arguments(request),
        requester_id=request.requester_id,
        approval_id=request.id,
        language=asked.language,
        timezone=asked.timezone,
    )
