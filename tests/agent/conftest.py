"""An agent wired to the scripted LLM, a database (both engines) and test tools."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from bot.agent import events as ev
from bot.agent.approvals.service import ApprovalService
from bot.agent.conversation.history import ConversationStore
from bot.agent.llm.client import LLMClient
from bot.agent.loop import Agent, Handler, PromptInput, RunRequest
from bot.agent.runs import Prompt
from bot.agent.tools import Tool, ToolContext, ToolError, ToolRegistry, tool
from bot.i18n import Language
from bot.runtime.clock import ManualClock
from bot.settings import Settings
from bot.storage import Database
from tests.fakes.llm_server import ScriptedLLM


@dataclass
class Notebook:
    """What the test tools did, for assertions."""

    notes: list[str] = field(default_factory=list)
    release: asyncio.Event = field(default_factory=asyncio.Event)
    # Set by long_job once it has reported its progress, so a test stops it at a known point.
    reported: asyncio.Event = field(default_factory=asyncio.Event)


def make_tools(book: Notebook) -> list[Tool]:
    """A side-effect tool, a read-only one, a failing one, a slow one and a hanging one."""

    @tool(timeout=5)
    async def add_note(ctx: ToolContext, text: str, priority: int = 1) -> dict[str, Any]:
        """Save a note for the user.

        Args:
            text: What to write down.
            priority: 1 (low) to 3 (high).
        """
        if not text.strip():
            raise ToolError("the note is empty: ask the user what to write")
        book.notes.append(text)
        return {"saved": text, "by": ctx.user_name, "count": len(book.notes)}

    @tool(requires_approval=False)
    async def count_notes(ctx: ToolContext) -> int:
        """How many notes exist (read-only)."""
        return len(book.notes)

    @tool(requires_approval=False)
    async def explode(ctx: ToolContext) -> str:
        """Always fails."""
        raise RuntimeError("disk on fire")

    @tool(requires_approval=False, timeout=0.2)
    async def slow(ctx: ToolContext) -> str:
        """Never finishes in time."""
        await asyncio.sleep(10)
        return "late"

    @tool(requires_approval=False, timeout=30)
    async def long_job(ctx: ToolContext, steps: int) -> str:
        """Reports progress, then waits to be released."""
        for step in range(steps):
            ctx.report_partial({"step": step + 1})
        book.reported.set()
        await book.release.wait()
        return "finished"

    return [add_note, count_notes, explode, slow, long_job]


TOOL_NAMES = ("add_note", "count_notes", "explode", "slow", "long_job")


async def _instructions(prompt: PromptInput) -> Prompt:
    return Prompt("You are a test assistant.", f"Now {prompt.local_now:%Y-%m-%d %H:%M}.")


@dataclass
class Rig:
    """Everything a test needs to drive the agent."""

    agent: Agent
    llm: ScriptedLLM
    approvals: ApprovalService
    store: ConversationStore
    book: Notebook
    clock: ManualClock
    database: Database
    settings: Settings

    def request(
        self, user_id: int = 100, handler: str = "general", language: Language = "ja"
    ) -> RunRequest:
        """A run request from user_id in channel 10, written in `language`."""
        return RunRequest(
            user_id=user_id,
            user_name=f"user{user_id}",
            channel_id=10,
            guild_id=1,
            conversation_key=f"c10:u{user_id}",
            handler=handler,
            timezone=self.settings.timezone,
            origin_message_id=555,
            language=language,
        )

    def rebuilt(self, approvals_timeout: float | None = None) -> Rig:
        """A second agent on the same database, as after a restart (no in-memory state)."""
        approvals = ApprovalService(
            self.database.sessions,
            self.clock,
            approvals_timeout or self.approvals.timeout.total_seconds(),
        )
        store = ConversationStore(self.database.sessions, self.clock, self.store.max_messages)
        agent = Agent(
            settings=self.settings,
            clock=self.clock,
            sessions=self.database.sessions,
            llm=self.agent.llm,
            registry=self.agent.registry,
            approvals=approvals,
            store=store,
            handlers=self.agent.handlers,
        )
        return Rig(
            agent, self.llm, approvals, store, self.book, self.clock, self.database, self.settings
        )


OnEvent = Callable[[ev.AgentEvent], Awaitable[None]]


async def collect(
    events: AsyncIterator[ev.AgentEvent],
    on_event: OnEvent | None = None,
) -> list[ev.AgentEvent]:
    """Drain a run, calling on_event for each event (e.g. to click a button)."""
    seen: list[ev.AgentEvent] = []
    async for event in events:
        seen.append(event)
        if on_event is not None:
            await on_event(event)
    return seen


async def converse(
    rig: Rig,
    events: AsyncIterator[ev.AgentEvent],
    on_event: OnEvent | None = None,
) -> list[ev.AgentEvent]:
    """Drain a run and, whenever it stopped at a card that on_event decided, resume it from
    the stored history as the process receiving the click does."""
    seen: list[ev.AgentEvent] = []
    while True:
        batch = await collect(events, on_event)
        seen += batch
        last = batch[-1] if batch else None
        if not (isinstance(last, ev.Done) and last.reason == "awaiting_approval"):
            return seen
        asked = next(e for e in reversed(batch) if isinstance(e, ev.ApprovalRequired))
        row = await rig.approvals.get(asked.approval_id)
        if row is None or row.status == "pending":
            return seen
        events = rig.agent.resume(asked.approval_id)


@pytest.fixture
async def rig(
    database: Database, clock: ManualClock, make_settings: Callable[..., Settings]
) -> AsyncIterator[Rig]:
    """The agent under test with a scripted model."""
    async with ScriptedLLM() as llm:
        settings = make_settings(
            LLM_MODEL="openai/test-model",
            LLM_API_BASE=llm.api_base,
            LLM_API_KEY="test-key",
            LLM_NUM_RETRIES=0,
            AGENT_MAX_STEPS=3,
            HISTORY_MAX_MESSAGES=30,
        )
        book = Notebook()
        registry = ToolRegistry(make_tools(book))
        approvals = ApprovalService(database.sessions, clock, 300)
        store = ConversationStore(database.sessions, clock, settings.history_max_messages)
        handlers = {"general": Handler("general", _instructions, TOOL_NAMES)}
        agent = Agent(
            settings=settings,
            clock=clock,
            sessions=database.sessions,
            llm=LLMClient(settings, database.sessions, clock),
            registry=registry,
            approvals=approvals,
            store=store,
            handlers=handlers,
        )
        yield Rig(agent, llm, approvals, store, book, clock, database, settings)
        await store.wait_for_summaries()
