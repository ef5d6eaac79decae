"""Approvals as data: pending tool calls are rows; a decision is a conditional update.

Nothing waits in memory: whoever changes a row (a click, the expiry sweep) continues the
conversation by resuming it from the stored history, in whichever process that happens.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, case, delete, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.agent.approvals.types import (
    Decision,
    DecisionOutcome,
    NewApproval,
    Status,
    already_text,
    decode_arguments,
    not_yours_text,
)
from bot.i18n import Language, answers
from bot.members.permissions import may_decide
from bot.runtime.clock import Clock
from bot.runtime.metrics import Metrics
from bot.storage.agent import DM_GRANTS, ApprovalRequest, ToolGrant

__all__ = [
    "ApprovalService",
    "Decision",
    "DecisionOutcome",
    "NewApproval",
    "Status",
    "decode_arguments",
]

log = logging.getLogger(__name__)

# Decisions a resume carries on: the call runs, or the model learns why it did not.
RESUMABLE = (Status.APPROVED, Status.REJECTED, Status.EXPIRED)


def _same_provider(provider: str | None) -> ColumnElement[bool]:
    """The grant was made for provider (NULL only equals NULL: the bot's own tools)."""
    if provider is None:
        return ToolGrant.provider.is_(None)
    return ToolGrant.provider == provider


def _other_provider(provider: str | None) -> ColumnElement[bool]:
    """The grant was made for anyone but provider."""
    if provider is None:
        return ToolGrant.provider.is_not(None)
    return or_(ToolGrant.provider.is_(None), ToolGrant.provider != provider)


# The tools a server runs without asking (its admins' list, else AUTO_APPROVE_TOOLS).
AutoApproved = Callable[[int | None], frozenset[str]]


def grant_place(guild_id: int | None) -> int:
    """tool_grants.guild_id of a grant made in guild_id (a DM is its own place)."""
    return DM_GRANTS if guild_id is None else guild_id


def _granted_here(guild_id: int | None) -> ColumnElement[bool]:
    """Grants that count in guild_id (a DM when None): its own, and those from before servers
    had their own (NULL), which count everywhere as they did."""
    return or_(ToolGrant.guild_id.is_(None), ToolGrant.guild_id == grant_place(guild_id))


class ApprovalService:
    """Creates, decides and expires approval requests; manages always-allow grants."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        timeout_seconds: float,
        auto_approve: frozenset[str] | AutoApproved = frozenset(),
        metrics: Metrics | None = None,
    ) -> None:
        self._sessions = sessions
        self._clock = clock
        self.timeout = timedelta(seconds=timeout_seconds)
        # AUTO_APPROVE_TOOLS, or each server's own list (its admins' setting).
        self._auto_approve: AutoApproved = (
            (lambda _guild: auto_approve) if isinstance(auto_approve, frozenset) else auto_approve
        )
        self._metrics = metrics

    async def create(self, new: NewApproval) -> ApprovalRequest:
        """Store a pending request; the row exists before anyone is shown a card."""
        now = self._clock.now()
        row = ApprovalRequest(
            tool_call_id=new.tool_call_id,
            tool_name=new.tool_name,
            arguments=json.dumps(new.arguments, ensure_ascii=False),
            requester_id=new.requester_id,
            requester_name=new.requester_name[:100],
            guild_id=new.guild_id,
            channel_id=new.channel_id,
            origin_message_id=new.origin_message_id,
            conversation_key=new.conversation_key,
            handler=new.handler,
            run_request=new.run_request,
            provider=new.provider,
            batch=new.batch,
            untrusted=new.untrusted,
            status=Status.PENDING,
            created_at=now,
            expires_at=now + self.timeout,
        )
        async with self._sessions() as session, session.begin():
            session.add(row)
        return row

    async def get(self, approval_id: int) -> ApprovalRequest | None:
        """The request with this id."""
        async with self._sessions() as session:
            return await session.get(ApprovalRequest, approval_id)

    async def find_by_call(self, conversation_key: str, call_id: str) -> ApprovalRequest | None:
        """The newest request for a tool call of a conversation."""
        async with self._sessions() as session:
            return await session.scalar(
                select(ApprovalRequest)
                .where(
                    ApprovalRequest.conversation_key == conversation_key,
                    ApprovalRequest.tool_call_id == call_id,
                )
                .order_by(ApprovalRequest.id.desc())
                .limit(1)
            )

    async def attach_card(self, approval_id: int, message_id: int) -> None:
        """Remember which Discord message shows this request (to edit it later)."""
        async with self._sessions() as session, session.begin():
            await session.execute(
                update(ApprovalRequest)
                .where(ApprovalRequest.id == approval_id)
                .values(card_message_id=message_id)
            )

    def refusal(
        self, request: ApprovalRequest, user_id: int, is_approver: bool, language: Language = "en"
    ) -> str | None:
        """Why user_id may not decide this request, or None when they may (the one rule: the
        member who asked, or an approver)."""
        if may_decide(user_id, request.requester_id, is_approver=is_approver):
            return None
        return not_yours_text(request.requester_name, language)

    async def decide(
        self,
        approval: ApprovalRequest | int,
        user_id: int,
        decision: Decision,
        reason: str | None = None,
        *,
        is_approver: bool = False,
        language: Language = "en",
    ) -> DecisionOutcome:
        """Apply a person's decision once; refuse anyone but the requester or an approver.

        Given the row a click already read, it is not read again: the conditional update says
        whether the decision took, and the row is brought up to date in memory.
        """
        request = approval if isinstance(approval, ApprovalRequest) else await self.get(approval)
        if request is None:
            return DecisionOutcome(False, None, answers.UNKNOWN_APPROVAL(language), None)
        refusal = self.refusal(request, user_id, is_approver, language)
        if refusal is not None:
            return DecisionOutcome(False, Status(request.status), refusal, request)
        if request.status != Status.PENDING:
            return DecisionOutcome(
                False,
                Status(request.status),
                already_text(Status(request.status), language),
                request,
            )
        now = self._clock.now()
        if request.expires_at <= now:
            expired = await self._set_status(request.id, Status.EXPIRED, None, None, now)
            if expired:
                _decided(request, Status.EXPIRED, None, None, now)
            else:
                request = await self.get(request.id) or request
            return DecisionOutcome(
                False,
                Status(request.status),
                answers.ALREADY_EXPIRED(language),
                request,
                changed=expired,
            )
        status = Status.REJECTED if decision == Decision.REJECT else Status.APPROVED
        why = (reason or "").strip()[:500] or None
        changed = await self._set_status(request.id, status, why, user_id, now)
        if not changed:
            # Someone (or the sweep) decided it a moment earlier: say what happened instead.
            current_row = await self.get(request.id)
            current = Status(current_row.status) if current_row else None
            text = (
                already_text(current, language) if current else answers.UNKNOWN_APPROVAL(language)
            )
            return DecisionOutcome(False, current, text, current_row)
        _decided(request, status, why, user_id, now)
        if decision == Decision.ALWAYS:
            # For the provider the card showed, whoever provides the name by now.
            await self.grant(
                request.requester_id,
                request.tool_name,
                request.provider,
                guild_id=request.guild_id,
            )
        text = {
            Decision.APPROVE: answers.APPROVED(language),
            Decision.ALWAYS: answers.APPROVED_ALWAYS(language, tool=request.tool_name),
            Decision.REJECT: answers.REJECTED(language),
        }[decision]
        return DecisionOutcome(True, status, text, request, changed=True)

    async def approve_edited(
        self,
        request: ApprovalRequest,
        user_id: int,
        arguments: dict[str, Any],
        *,
        is_approver: bool = False,
        language: Language = "en",
    ) -> DecisionOutcome:
        """Approve the call with a member's edit of its arguments (already validated): the
        edit and the approval are one conditional update, so a pending row takes both or
        neither; the model's own arguments are kept to tell it what changed."""
        refusal = self.refusal(request, user_id, is_approver, language)
        if refusal is not None:
            return DecisionOutcome(False, Status(request.status), refusal, request)
        now = self._clock.now()
        if request.status != Status.PENDING or request.expires_at <= now:
            return await self.decide(
                request, user_id, Decision.APPROVE, is_approver=is_approver, language=language
            )
        edited = json.dumps(arguments, ensure_ascii=False)
        original = request.original_arguments or request.arguments
        async with self._sessions() as session, session.begin():
            result = await session.execute(
                update(ApprovalRequest)
                .where(ApprovalRequest.id == request.id, ApprovalRequest.status == Status.PENDING)
                .values(
                    status=Status.APPROVED,
                    arguments=edited,
                    original_arguments=original,
                    decided_by=user_id,
                    decided_at=now,
                )
            )
        if not getattr(result, "rowcount", 0):
            current_row = await self.get(request.id)
            current = Status(current_row.status) if current_row else None
            text = (
                already_text(current, language) if current else answers.UNKNOWN_APPROVAL(language)
            )
            return DecisionOutcome(False, current, text, current_row)
        if self._metrics is not None:
            self._metrics.approval(str(Status.APPROVED))
        _decided(request, Status.APPROVED, None, user_id, now)
        request.arguments, request.original_arguments = edited, original
        return DecisionOutcome(
            True, Status.APPROVED, answers.APPROVED(language), request, changed=True
        )

    async def in_batch(self, request: ApprovalRequest) -> list[ApprovalRequest]:
        """The requests asked together with this one (itself included), in call order; a
        request asked alone is its own batch."""
        if request.batch is None:
            return [request]
        async with self._sessions() as session:
            rows = await session.scalars(
                select(ApprovalRequest)
                .where(
                    ApprovalRequest.conversation_key == request.conversation_key,
                    ApprovalRequest.batch == request.batch,
                )
                .order_by(ApprovalRequest.id)
            )
            return list(rows.all())

    async def batch_waits(self, request: ApprovalRequest) -> bool:
        """Whether a request asked together with this one is still undecided (the
        conversation goes on only once each has its decision)."""
        if request.batch is None:
            return False
        return any(
            row.status == Status.PENDING and row.id != request.id
            for row in await self.in_batch(request)
        )

    async def withdraw_changed(self, request: ApprovalRequest) -> None:
        """An approval this run claimed, for a tool whose provider changed since its card: it
        is cancelled instead of run."""
        async with self._sessions() as session, session.begin():
            await session.execute(
                update(ApprovalRequest)
                .where(ApprovalRequest.id == request.id, ApprovalRequest.status == Status.EXECUTED)
                .values(status=Status.INVALIDATED)
            )
        request.status = Status.INVALIDATED

    async def claim_resume(self, request: ApprovalRequest) -> bool:
        """Take a decided request to carry the conversation on; only one caller, in any
        process, ever gets True. An approved request is marked executed in the same update,
        so its tool runs at most once."""
        now = self._clock.now()
        async with self._sessions() as session, session.begin():
            result = await session.execute(
                update(ApprovalRequest)
                .where(
                    ApprovalRequest.id == request.id,
                    ApprovalRequest.resumed_at.is_(None),
                    ApprovalRequest.status.in_(RESUMABLE),
                )
                .values(
                    resumed_at=now,
                    status=case(
                        (ApprovalRequest.status == Status.APPROVED, Status.EXECUTED.value),
                        else_=ApprovalRequest.status,
                    ),
                )
            )
        claimed = bool(getattr(result, "rowcount", 0))
        if claimed:
            request.resumed_at = now
            if request.status == Status.APPROVED:
                request.status = Status.EXECUTED
        return claimed

    async def decided_unresumed(
        self, decided_after: datetime, decided_before: datetime
    ) -> list[ApprovalRequest]:
        """Decided requests no resume has carried on, decided in that window, oldest first."""
        async with self._sessions() as session:
            rows = await session.scalars(
                select(ApprovalRequest)
                .where(
                    ApprovalRequest.status.in_(RESUMABLE),
                    ApprovalRequest.resumed_at.is_(None),
                    ApprovalRequest.decided_at > decided_after,
                    ApprovalRequest.decided_at <= decided_before,
                )
                .order_by(ApprovalRequest.id)
            )
            return list(rows.all())

    async def expire(self, approval_id: int) -> Status:
        """Mark a pending request expired; return its final status either way."""
        await self._set_status(approval_id, Status.EXPIRED, None, None, self._clock.now())
        request = await self.get(approval_id)
        return Status(request.status) if request else Status.EXPIRED

    async def invalidate(self, approval_id: int) -> bool:
        """Cancel a pending request (stop, or the conversation moved on)."""
        return await self._set_status(
            approval_id, Status.INVALIDATED, None, None, self._clock.now()
        )

    async def pending_in(self, conversation_key: str) -> list[ApprovalRequest]:
        """Pending requests of a conversation, oldest first."""
        async with self._sessions() as session:
            rows = await session.scalars(
                select(ApprovalRequest)
                .where(
                    ApprovalRequest.conversation_key == conversation_key,
                    ApprovalRequest.status == Status.PENDING,
                )
                .order_by(ApprovalRequest.id)
            )
            return list(rows.all())

    async def expire_overdue(self) -> list[ApprovalRequest]:
        """Expire every pending request past its time; return those this call expired."""
        now = self._clock.now()
        async with self._sessions() as session:
            rows = list(
                (
                    await session.scalars(
                        select(ApprovalRequest).where(
                            ApprovalRequest.status == Status.PENDING,
                            ApprovalRequest.expires_at <= now,
                        )
                    )
                ).all()
            )
        expired = []
        for row in rows:
            if await self._set_status(row.id, Status.EXPIRED, None, None, now):
                row.status = Status.EXPIRED
                expired.append(row)
        return expired

    def auto_approved(self, guild_id: int | None = None) -> frozenset[str]:
        """The bot's own tools that run without asking in this server."""
        return self._auto_approve(guild_id)

    @property
    def auto_approve(self) -> frozenset[str]:
        """The tools that run without asking outside any server's own list."""
        return self._auto_approve(None)

    @auto_approve.setter
    def auto_approve(self, names: frozenset[str]) -> None:
        self._auto_approve = lambda _guild: names

    async def needs_asking(
        self,
        user_id: int,
        tool_name: str,
        provider: str | None = None,
        *,
        guild_id: int | None,
    ) -> tuple[bool, str]:
        """Whether to ask a person; the second item says why not ("policy" or "grant"). A
        grant counts only for the provider it was made for and in the server (or DMs) where
        it was made; the auto-approved tools (the server's list, else AUTO_APPROVE_TOOLS) are
        the bot's own tools only (a tool from outside is trusted through its source's own
        token)."""
        if tool_name in self._auto_approve(guild_id) and provider is None:
            return False, "policy"
        async with self._sessions() as session:
            grant = await session.scalar(
                select(ToolGrant.id)
                .where(
                    ToolGrant.user_id == user_id,
                    ToolGrant.tool_name == tool_name,
                    _same_provider(provider),
                    _granted_here(guild_id),
                )
                .limit(1)
            )
        return (False, "grant") if grant is not None else (True, "")

    async def grant(
        self,
        user_id: int,
        tool_name: str,
        provider: str | None = None,
        *,
        guild_id: int | None,
    ) -> None:
        """Always allow tool_name from provider for user_id in this server (or in DMs when
        guild_id is None); idempotent, a grant of the name for another provider is replaced."""
        now = self._clock.now()
        place = grant_place(guild_id)
        async with self._sessions() as session, session.begin():
            existing = await session.scalar(
                select(ToolGrant).where(
                    ToolGrant.user_id == user_id,
                    ToolGrant.tool_name == tool_name,
                    ToolGrant.guild_id == place,
                )
            )
            if existing is not None:
                if existing.provider != provider:
                    existing.provider, existing.created_at = provider, now
                return
        try:
            async with self._sessions() as session, session.begin():
                session.add(
                    ToolGrant(
                        user_id=user_id,
                        guild_id=place,
                        tool_name=tool_name,
                        provider=provider,
                        created_at=now,
                    )
                )
        except IntegrityError:
            pass  # granted at the same moment by another click

    async def keep_grants_for(self, tool_name: str, provider: str | None) -> int:
        """Drop every grant of tool_name made for another provider (its name now belongs to
        someone else, or says something else); return how many were dropped."""
        async with self._sessions() as session, session.begin():
            result = await session.execute(
                delete(ToolGrant).where(ToolGrant.tool_name == tool_name, _other_provider(provider))
            )
        return int(getattr(result, "rowcount", 0) or 0)

    async def grants(self, user_id: int, *, guild_id: int | None) -> list[ToolGrant]:
        """The user's always-allow grants that count in this server (or DMs), by tool name."""
        async with self._sessions() as session:
            rows = await session.scalars(
                select(ToolGrant)
                .where(ToolGrant.user_id == user_id, _granted_here(guild_id))
                .order_by(ToolGrant.tool_name, ToolGrant.id)
            )
            return list(rows.all())

    async def revoke(self, user_id: int, tool_name: str, *, guild_id: int | None) -> bool:
        """Withdraw a grant that counts here (this server's, or one from before servers had
        their own); True when one existed."""
        async with self._sessions() as session, session.begin():
            result = await session.execute(
                delete(ToolGrant).where(
                    ToolGrant.user_id == user_id,
                    ToolGrant.tool_name == tool_name,
                    _granted_here(guild_id),
                )
            )
        return bool(getattr(result, "rowcount", 0))

    async def _set_status(
        self,
        approval_id: int,
        status: Status,
        reason: str | None,
        user_id: int | None,
        now: datetime,
    ) -> bool:
        # Conditional on pending: two clicks (or two processes) change the row only once.
        async with self._sessions() as session, session.begin():
            result = await session.execute(
                update(ApprovalRequest)
                .where(ApprovalRequest.id == approval_id, ApprovalRequest.status == Status.PENDING)
                .values(status=status, reason=reason, decided_by=user_id, decided_at=now)
            )
        changed = bool(getattr(result, "rowcount", 0))
        if changed and self._metrics is not None:
            self._metrics.approval(str(status))
        return changed


def _decided(
    request: ApprovalRequest, status: Status, reason: str | None, by: int | None, at: datetime
) -> None:
    """Bring a row read earlier up to date with the decision this process just wrote."""
    request.status = status
    request.reason = reason
    request.decided_by = by
    request.decided_at = at
