"""Tables of the agent: conversation history, approval requests, always-allow grants, LLM calls."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, Float, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from bot.storage.engine import Base, UTCDateTime


class ConversationMessage(Base):
    """One typed message of a conversation, stored as JSON of its pydantic model."""

    __tablename__ = "conversation_messages"
    __table_args__ = (Index("ix_conversation_messages_key_id", "conversation_key", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    conversation_key: Mapped[str] = mapped_column(String(100))
    kind: Mapped[str] = mapped_column(String(20))
    payload: Mapped[str] = mapped_column(Text)
    exclude_from_context: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class ApprovalRequest(Base):
    """A tool call waiting for (or decided by) a person; written before any card is shown."""

    __tablename__ = "approval_requests"
    __table_args__ = (
        Index("ix_approval_requests_status_expires_at", "status", "expires_at"),
        Index("ix_approval_requests_conversation_key", "conversation_key"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tool_call_id: Mapped[str] = mapped_column(String(100))
    tool_name: Mapped[str] = mapped_column(String(64))
    arguments: Mapped[str] = mapped_column(Text)
    requester_id: Mapped[int] = mapped_column(BigInteger)
    requester_name: Mapped[str] = mapped_column(String(100))
    guild_id: Mapped[int | None] = mapped_column(BigInteger)
    channel_id: Mapped[int] = mapped_column(BigInteger)
    origin_message_id: Mapped[int | None] = mapped_column(BigInteger)
    card_message_id: Mapped[int | None] = mapped_column(BigInteger)
    conversation_key: Mapped[str] = mapped_column(String(100))
    handler: Mapped[str] = mapped_column(String(32))
    status: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    decided_by: Mapped[int | None] = mapped_column(BigInteger)
    decided_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # The whole run request (JSON), so a resume anywhere continues with the same rights.
    run_request: Mapped[str | None] = mapped_column(Text)
    # Set by the one resume that carries the decision on; a second resume finds it taken.
    resumed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # Who provided the tool the card showed (tools from outside; None for the bot's own): the
    # decision holds for that provider only.
    provider: Mapped[str | None] = mapped_column(String(64))
    # The model's arguments when a member edited them (arguments then holds the edit).
    original_arguments: Mapped[str | None] = mapped_column(Text)
    # Calls of one model turn asked together share this (the first such call's id): they are
    # decided one by one or all at once, and the conversation goes on once none is pending.
    batch: Mapped[str | None] = mapped_column(String(100))
    # Where the untrusted words the turn had read came from ("quote,web"): why the card was
    # shown despite a grant, and what a resume of this row has read.
    untrusted: Mapped[str | None] = mapped_column(String(64))


class ToolGrant(Base):
    """An "always allow" decision: this user lets this tool, from this provider, run without
    asking. The provider is part of what was granted (None for the bot's own tools)."""

    __tablename__ = "tool_grants"
    __table_args__ = (UniqueConstraint("user_id", "guild_id", "tool_name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(BigInteger)
    # Where it was granted: a server, DM_GRANTS for a DM; None for grants from before servers
    # had their own, which count everywhere.
    guild_id: Mapped[int | None] = mapped_column(BigInteger)
    tool_name: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    provider: Mapped[str | None] = mapped_column(String(64))


# tool_grants.guild_id of a grant made in a DM (a DM is its own scope).
DM_GRANTS = 0


class LLMCall(Base):
    """One call to the model: what it cost and how long it took (prompts only when debugging)."""

    __tablename__ = "llm_calls"
    __table_args__ = (
        Index("ix_llm_calls_started_at", "started_at"),
        # Budgets and /otomo usage read one server's day.
        Index("ix_llm_calls_guild_id_started_at", "guild_id", "started_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    model: Mapped[str] = mapped_column(String(200))
    purpose: Mapped[str] = mapped_column(String(32))
    conversation_key: Mapped[str | None] = mapped_column(String(100))
    started_at: Mapped[datetime] = mapped_column(UTCDateTime())
    latency_ms: Mapped[float] = mapped_column(Float)
    tokens_in: Mapped[int | None] = mapped_column(Integer)
    tokens_out: Mapped[int | None] = mapped_column(Integer)
    # Of tokens_in, those the provider read from its prompt cache (None: none, or not reported).
    tokens_cached: Mapped[int | None] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(Text)
    prompt: Mapped[str | None] = mapped_column(Text)
    response: Mapped[str | None] = mapped_column(Text)
    # The server and member the call was made for (None: a DM, or work of the whole bot).
    guild_id: Mapped[int | None] = mapped_column(BigInteger)
    user_id: Mapped[int | None] = mapped_column(BigInteger)


class ToolCardMessage(Base):
    """Which Discord message shows a tool call's card, so any process can finish it later."""

    __tablename__ = "tool_card_messages"
    __table_args__ = (
        UniqueConstraint("conversation_key", "call_id"),
        Index("ix_tool_card_messages_final_at_created_at", "final_at", "created_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    conversation_key: Mapped[str] = mapped_column(String(100))
    call_id: Mapped[str] = mapped_column(String(100))
    tool_name: Mapped[str] = mapped_column(String(64))
    channel_id: Mapped[int] = mapped_column(BigInteger)
    message_id: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    # The process (shard identity and incarnation) that posted it.
    executor: Mapped[str | None] = mapped_column(String(100))
    # When the card reached a final state; cards without one are checked after a crash.
    final_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class ToolRun(Base):
    """A tool call that started running: finished when its result is recorded, so a call a
    stopped process was running ends as "started, outcome unknown" instead of "not run"."""

    __tablename__ = "tool_runs"
    __table_args__ = (
        UniqueConstraint("conversation_key", "call_id"),
        Index("ix_tool_runs_finished_at", "finished_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    conversation_key: Mapped[str] = mapped_column(String(100))
    call_id: Mapped[str] = mapped_column(String(100))
    tool_name: Mapped[str] = mapped_column(String(64))
    channel_id: Mapped[int] = mapped_column(BigInteger)
    executor: Mapped[str] = mapped_column(String(100))
    started_at: Mapped[datetime] = mapped_column(UTCDateTime())
    # Past this the call cannot still be running anywhere (its timeout plus a margin).
    lease_until: Mapped[datetime] = mapped_column(UTCDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
