"""The agent loop: a function of stored history that streams events and gates tool calls."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Mapping
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.agent import endings
from bot.agent import events as ev
from bot.agent.approvals import taint
from bot.agent.approvals.service import ApprovalService, Status
from bot.agent.attachments.reading import Reading, attach
from bot.agent.call_records import CallRecords
from bot.agent.conversation import messages as m
from bot.agent.conversation.history import ConversationStore, unanswered_in
from bot.agent.conversation.parts import Shared
from bot.agent.llm.client import LLMClient, LLMFailure, Payer, TextChunk, ToolCallName, Turn
from bot.agent.recovery import Recovery
from bot.agent.runs import (
    CONTINUE,
    PLANNING_PROMPT,
    Handler,
    PromptInput,
    RunRequest,
    RunState,
    Stopped,
    TagFilter,
    intent,
    laid_out,
    race,
    strip_tags,
    topic_text,
)
from bot.agent.tool_calls import SettleEnd, SettleEndKind, ToolCalls
from bot.agent.tools import ToolContext, ToolRegistry
from bot.i18n import answers
from bot.runtime.clock import Clock
from bot.settings import Settings
from bot.storage.agent import ApprovalRequest

__all__ = ["Agent", "Handler", "PromptInput", "RunRequest"]

log = logging.getLogger(__name__)


class Agent:
    """Runs handlers over the model; every state change is an event and lands in history."""

    def __init__(
        self,
        *,
        settings: Settings,
        clock: Clock,
        sessions: async_sessionmaker[AsyncSession],
        llm: LLMClient,
        registry: ToolRegistry,
        approvals: ApprovalService,
        store: ConversationStore,
        handlers: Mapping[str, Handler],
        deps: object = None,
        executor: str | None = None,
    ) -> None:
        self.settings = settings
        self.clock = clock
        self.sessions = sessions
        self.llm = llm
        self.registry = registry
        self.approvals = approvals
        self.store = store
        self.handlers = dict(handlers)
        # Passed to every tool call as ctx.deps (the services the tools use).
        self.deps = deps
        # This process (its shards' identity and this incarnation), for the call records.
        self.records = CallRecords(sessions, executor or f"process/{uuid.uuid4().hex[:8]}")
        self.recovery = Recovery(self.records, store, approvals, clock)
        self.calls = ToolCalls(
            registry=registry,
            approvals=approvals,
            store=store,
            records=self.records,
            clock=clock,
            make_context=self._tool_context,
        )

    async def run(
        self,
        request: RunRequest,
        text: str,
        stop: asyncio.Event | None = None,
        *,
        shared: Shared | None = None,
    ) -> AsyncIterator[ev.AgentEvent]:
        """Answer a new user message (with what it shares): record it, then continue."""
        key = request.conversation_key
        model = await self.llm.current_model(request.guild_id)
        state = RunState(request, stop or asyncio.Event(), model=model)
        # One read serves the leftovers, the attachments' context and the first round's.
        recent = await self.store.recent(key)
        moved_on = False
        leftovers = unanswered_in(recent.tail)
        # A pending approval is a call still unanswered: with none, there is none to end.
        if leftovers:
            async for event in self.calls.invalidate_leftovers(request, leftovers):
                moved_on = True  # rejections were written: the window read is out of date
                yield event
        message = m.UserMessage(text=text, author_id=request.user_id, author_name=request.user_name)
        if shared is not None and (shared.files or shared.quotes):
            history = None if moved_on else recent.context_after()
            if history is None:
                history = await self.store.context(key)
            reading = Reading.of(self.settings, model, self.llm.supports_vision(model))
            state.images, warnings = await attach(
                message, shared, history, reading, request.language
            )
            if warnings:
                yield ev.Notice("\n".join(warnings))
        await self.store.append(key, message)
        if not moved_on:
            # As stored (and as a later read returns it): the run's images stay out.
            state.context = recent.context_after(m.load(m.dump(message)))
        # The new message answered every call before it: nothing is left to settle.
        async for event in self._continue(state, plan=self.settings.agent_planning, unanswered=[]):
            yield event

    async def resume(
        self,
        approval: ApprovalRequest | int,
        stop: asyncio.Event | None = None,
        request: RunRequest | None = None,
    ) -> AsyncIterator[ev.AgentEvent]:
        """Continue a conversation from stored history once its approval row was decided or
        expired: the only way a run goes on after a card (in any process).

        The decision is claimed in the database first, so of two resumes (a double click
        racing the sweep, two processes) exactly one carries it on. request is the row's run
        request when the caller decoded it already (`RunRequest.of_approval`), so a resume
        reads it once.
        """
        row = (
            approval
            if isinstance(approval, ApprovalRequest)
            else await self.approvals.get(approval)
        )
        if row is None:
            yield ev.Failed(answers.UNKNOWN_APPROVAL("en"), "unknown_approval")
            return
        if row.status == Status.PENDING or await self.approvals.batch_waits(row):
            return  # undecided, or asked together with calls still undecided
        if not await self.approvals.claim_resume(row):
            return  # another resume carries it on
        waiting = await self.calls.unanswered(row.conversation_key)
        if row.tool_call_id not in {call.id for call in waiting}:
            return  # the conversation moved on and answered the call already
        if request is None:
            request = RunRequest.of_approval(row, self.settings.timezone)
        state = RunState(
            request, stop or asyncio.Event(), model=await self.llm.current_model(request.guild_id)
        )
        state.decided[row.tool_call_id] = row
        state.claimed.add(row.id)
        # What the turn had read before its card (its prompt's notes, say) still counts.
        state.untrusted |= taint.loaded(row.untrusted)
        # AGENT_MAX_STEPS counts the model rounds of the member's turn, not of each resume.
        state.steps = endings.rounds_of_turn(await self.store.context(request.conversation_key))
        async for event in self._continue(state, plan=False, unanswered=waiting):
            yield event

    # -- the loop ------------------------------------------------------------------------

    async def _continue(
        self, state: RunState, *, plan: bool, unanswered: list[m.ToolCall] | None = None
    ) -> AsyncIterator[ev.AgentEvent]:
        handler = state.request.narrowed(
            self.handlers.get(state.request.handler) or self.handlers["general"]
        )
        while True:
            end: SettleEndKind = "continue"
            # [] is known to leave nothing to settle (a new message answered every call).
            if unanswered != []:
                async for step in self.calls.settle(state, handler, unanswered):
                    if isinstance(step, SettleEnd):
                        end = step.kind
                    else:
                        yield step
            unanswered = None  # read afresh after this turn
            if end == "elsewhere":
                return  # another run already carries this conversation on
            if end == "interrupted":
                yield ev.Done(state.last_text, endings.stopped(state)[0], state.usage)
                return
            if end != "continue":
                yield ev.Done(state.last_text, end, state.usage)
                return
            if state.steps >= self.settings.agent_max_steps:
                yield await self._end_early(
                    state, endings.out_of_steps(state.steps, state.request.language)
                )
                yield ev.Done(state.last_text, "max_steps", state.usage)
                return
            planning_round = plan and state.steps == 0
            turn: Turn | None = None
            try:
                async for item in self._model_round(state, handler, planning_round):
                    if isinstance(item, Turn):
                        turn = item
                    else:
                        yield item
            except LLMFailure as failure:
                yield ev.Failed(failure.in_language(state.request.language), failure.kind)
                return
            except Stopped:
                yield ev.Done(state.last_text, endings.stopped(state)[0], state.usage)
                return
            assert turn is not None
            state.steps += 1
            yield ev.RoundEnd(state.steps)
            if turn.cut:
                yield await self._end_early(
                    state, endings.cut(turn, self.settings, state.request.language)
                )
                yield ev.Done(state.last_text, "cut", state.usage)
                return
            if planning_round:
                if intent(turn.text) is False:
                    self._after_answer(state.request)
                    yield ev.Done(state.last_text, "answered", state.usage)
                    return
                # <need_tool> or no tag at all: the tool loop follows, after a marker that
                # hands the turn back to the model.
                await self.store.append(
                    state.request.conversation_key, m.UserMessage(text=CONTINUE)
                )
                continue
            if not turn.tool_calls:
                self._after_answer(state.request)
                yield ev.Done(state.last_text, "answered", state.usage)
                return

    async def _model_round(
        self, state: RunState, handler: Handler, planning_round: bool
    ) -> AsyncIterator[ev.AgentEvent | Turn]:
        request = state.request
        history, state.context = state.context, None
        if history is None:
            history = await self.store.context(request.conversation_key)
        if state.system_prompt is None:
            # Built once per run: its sections (knowledge, notes, topics) read the database
            # and the worker thread, and the run's inputs do not change between rounds.
            prompt = self._prompt_input(request, history)
            state.system_prompt = await handler.instructions(prompt)
            state.untrusted |= prompt.untrusted
        messages = laid_out(
            state.system_prompt, m.to_llm(history, state.images, asker=request.user_id)
        )
        tools: list[dict[str, Any]] | None = None
        if planning_round:
            messages.append({"role": "system", "content": PLANNING_PROMPT})
        else:
            offered = self.registry.select(handler.tools, request.guild_id, handler.name)
            tools = [t.schema() for t in offered] or None
        # Every round: a model that saw the planning prompt (or its own tagged answers) may
        # write a tag later too, and a tag is never for the member nor for history.
        tag_filter = TagFilter()
        text = ""
        turn: Turn | None = None
        stream = self.llm.stream(
            messages,
            tools,
            purpose=request.purpose or handler.name,
            conversation_key=request.conversation_key,
            model=state.model,
            payer=Payer(request.guild_id, request.user_id),
        )
        iterator = stream.__aiter__()
        try:
            while True:
                try:
                    item = await race(iterator.__anext__(), state.stop)
                except StopAsyncIteration:
                    break
                if isinstance(item, TextChunk):
                    piece = tag_filter.feed(item.text)
                    if piece:
                        text += piece
                        yield ev.TextDelta(piece)
                elif isinstance(item, ToolCallName):
                    yield ev.ToolCallStarted(item.call_id, item.name)
                else:
                    turn = item
        except Stopped:
            text += tag_filter.flush()
            await self._record_interrupted_text(state, text)
            raise
        finally:
            await stream.aclose()
        tail = tag_filter.flush()
        if tail:
            text += tail
            yield ev.TextDelta(tail)
        assert turn is not None
        state.usage.add(turn.usage)
        clean = strip_tags(text)
        state.last_text = clean
        # A cut turn's calls may be cut mid-arguments: none of them runs.
        tool_calls = [] if planning_round or turn.cut else turn.tool_calls
        if clean or tool_calls:
            await self.store.append(
                request.conversation_key, m.AssistantMessage(text=clean, tool_calls=tool_calls)
            )
        yield turn

    async def _end_early(self, state: RunState, ending: endings.Ending) -> ev.Notice:
        """Note for the model why the run ended early; the notice for the member."""
        await self.store.append(state.request.conversation_key, ending.note)
        return ev.Notice(ending.said)

    async def _record_interrupted_text(self, state: RunState, text: str) -> None:
        state.last_text = text
        items: list[m.Message] = []
        if text:
            items.append(m.AssistantMessage(text=text))
        items.append(endings.stopped(state)[1])
        await self.store.append(state.request.conversation_key, *items)

    # -- helpers -------------------------------------------------------------------------

    def _tool_context(self, request: RunRequest) -> ToolContext[object]:
        return ToolContext(
            user_id=request.user_id,
            user_name=request.user_name,
            guild_id=request.guild_id,
            channel_id=request.channel_id,
            clock=self.clock,
            sessions=self.sessions,
            settings=self.settings,
            timezone=request.timezone,
            origin_message_id=request.origin_message_id,
            conversation_key=request.conversation_key,
            is_admin=request.is_admin,
            role_ids=request.role_ids,
            manages_server=request.manages_server,
            language=request.language,
            deps=self.deps,
        )

    def _prompt_input(self, request: RunRequest, history: list[m.Message]) -> PromptInput:
        user = next(
            (x for x in reversed(history) if isinstance(x, m.UserMessage) and x.text != CONTINUE),
            None,
        )
        return PromptInput(
            text=topic_text(user),
            user_name=request.user_name,
            local_now=self.clock.now().astimezone(request.timezone),
            timezone=request.timezone,
            guild_id=request.guild_id,
            channel_id=request.channel_id,
        )

    def _after_answer(self, request: RunRequest) -> None:
        payer = Payer(request.guild_id, request.user_id)

        async def summarize(messages: list[dict[str, object]], instructions: str) -> str:
            # The summary is the server's and member's use too (budgets count it).
            return await self.llm.complete(
                [
                    {"role": "system", "content": instructions},
                    *messages,
                    {"role": "user", "content": "Write the summary now."},
                ],
                purpose="summary",
                payer=payer,
            )

        self.store.summarise_in_background(request.conversation_key, summarize)
